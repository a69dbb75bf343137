// Functions' literal banks (found by scripts/fuzz-equiv, seed 7): ptxas gives a function
// with double constants or (sm_100+) a switch's jump table its own `.nv.constant2.<fn>`,
// and on sm_100+ a Mercury twin `.nv.merc.nv.constant.optimizer.<fn>` whose
// R_MERCURY_PROG_REL32 entries point into the function's capsule code. Bank 2 is per
// kernel, so nvlink's final links copy every live function's bank into the
// `.nv.constant2.<kernel>` of each kernel reaching it, at one offset for all of them: a
// kernel's own bank at 0, then the functions' banks in the reverse of their input order
// (objects in link order), each above the end of its kernels' banks so far; gaps are zeroed, the function's own section and its
// `<fn>.const_opt.*` symbols go. The code's constant fields get `offset - 0x8000` in 16
// bits (the references carry -0x8000). The Mercury twins follow, entries once per kernel,
// a function's one const_opt symbol at a time (last first). -r keeps every bank as it is;
// a dead function's bank goes with it.
__device__ int shared_fn(int);
__device__ int other_tu(int);

__device__ __noinline__ int private_a(int x)
{
    switch (x & 7) {
    case 0: x = x * 3 + 783; break;
    case 1: x = x * 7 + 349; break;
    case 2: x = x * 7 + 609; break;
    case 3: x = x * 9 + 594; break;
    case 4: x = x * 9 + 71; break;
    case 5: x = x * 3 + 968; break;
    default: x ^= 7;
    }
    return (int)((double)x * 1.4302319548424449 + 386097030.2136817 / (double)(x | 1));
}

__device__ __noinline__ int never_called(int x)
{
    switch (x & 7) {
    case 0: x = x * 5 + 11; break;
    case 1: x = x * 11 + 12; break;
    case 2: x = x * 13 + 13; break;
    case 3: x = x * 3 + 14; break;
    case 4: x = x * 9 + 15; break;
    case 5: x = x * 7 + 16; break;
    default: x ^= 3;
    }
    return x;
}

__global__ void k_own(int *o)
{
    int x = o[threadIdx.x];
    switch (x & 7) {
    case 0: x = x * 5 + 83; break;
    case 1: x = x * 11 + 39; break;
    case 2: x = x * 7 + 69; break;
    case 3: x = x * 19 + 54; break;
    case 4: x = x * 9 + 71; break;
    case 5: x = x * 13 + 98; break;
    default: x ^= 9;
    }
    o[threadIdx.x] = shared_fn(x) + other_tu(x);
}

__global__ void k_calls(int *o) { o[threadIdx.x] = private_a(o[threadIdx.x]) + shared_fn(o[1]); }
