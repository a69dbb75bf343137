struct Shape {
    __device__ virtual float area() const = 0;
    __device__ virtual ~Shape() {}
};
struct Square : Shape {
    float s;
    __device__ Square(float v) : s(v) {}
    __device__ float area() const override;
};
struct Circle : Shape {
    float r;
    __device__ Circle(float v) : r(v) {}
    __device__ float area() const override;
};
