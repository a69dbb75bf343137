__managed__ float m_data[32];
extern __managed__ int m_counter;
__global__ void k_managed_b(int *out) { out[threadIdx.x] = m_counter + (int)m_data[0]; }
