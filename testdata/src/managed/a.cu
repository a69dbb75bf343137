// __managed__ variables defined and referenced across TUs.
__managed__ int m_counter = 1;
extern __managed__ float m_data[32];
__global__ void k_managed_a() { atomicAdd(&m_counter, 1); m_data[threadIdx.x % 32] += 1.0f; }
