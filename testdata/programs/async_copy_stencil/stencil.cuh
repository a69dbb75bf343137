#pragma once
#include <cuda_runtime.h>
#include <cuda_pipeline.h>
#include <cuda/pipeline>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

#define RADIUS 4
#define CHUNK 256
extern __constant__ float cCoef[2 * RADIUS + 1];

__device__ void stageChunk(float *dst, const float *src, int count);
__device__ float applyStencil(const float *s, int i);
