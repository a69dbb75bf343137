#pragma once
#include <cuda_runtime.h>

#define MAX_DWELL 512
#define SUBDIV 4
#define MAX_DEPTH 4
#define MIN_SIZE 32
#define DIFF_DWELL (-1)

struct View { float x0, y0, x1, y1; int w, h; };
extern __constant__ View cView;
extern __device__ int gLaunchErrors;

__device__ int pixelDwell(int x, int y);
__device__ int borderDwell(int x0, int y0, int d);
__global__ void fillRect(int *dwells, int x0, int y0, int d, int value);
__global__ void perPixel(int *dwells, int x0, int y0, int d);
__global__ void marianiSilver(int *dwells, int x0, int y0, int d, int depth);
