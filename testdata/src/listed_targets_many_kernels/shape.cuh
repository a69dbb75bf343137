struct Shape { __device__ virtual float area() const = 0; __device__ virtual ~Shape() {} };
struct Disc : Shape { float r; __device__ Disc(float r) : r(r) {} __device__ float area() const override; };
__device__ Shape *make(float r);
