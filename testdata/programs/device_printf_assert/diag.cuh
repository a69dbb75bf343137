#pragma once
#include <cstdio>
#include <cassert>

enum Stage { STAGE_LOAD, STAGE_SCALE, STAGE_STORE, STAGE_COUNT };

extern __device__ const char *const stageNames[STAGE_COUNT];
extern __constant__ char cBanner[32];
extern __device__ unsigned long long gEvents;

__device__ void report(Stage s, int block, double value);
__device__ float checkedScale(float v, float s);
