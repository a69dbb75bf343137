// One tile per block: load keys and values with warp-transposed BlockLoad, encode the keys,
// sort pairs with BlockRadixSort (blocked -> striped), rank the values with BlockScan
// (exclusive sum) and a running max (inclusive scan), store with BlockStore.
#include "keys.cuh"

__global__ void __launch_bounds__(kBlockThreads)
sortAndRankTiles(const float *keys_in, const int *vals_in, unsigned *keys_out, int *ranks_out,
                 int *running_out, int n) {
  using LoadF = cub::BlockLoad<float, kBlockThreads, kItemsPerThread, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using LoadI = cub::BlockLoad<int, kBlockThreads, kItemsPerThread, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Sort = cub::BlockRadixSort<unsigned, kBlockThreads, kItemsPerThread, int>;
  using Scan = cub::BlockScan<int, kBlockThreads, cub::BLOCK_SCAN_RAKING_MEMOIZE>;
  using StoreU = cub::BlockStore<unsigned, kBlockThreads, kItemsPerThread, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  using StoreI = cub::BlockStore<int, kBlockThreads, kItemsPerThread, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  __shared__ union {
    typename LoadF::TempStorage loadf;
    typename LoadI::TempStorage loadi;
    typename Sort::TempStorage sort;
    typename Scan::TempStorage scan;
    typename StoreU::TempStorage storeu;
    typename StoreI::TempStorage storei;
  } temp;

  const int base = blockIdx.x * kTile;
  const int valid = min(kTile, n - base);
  float fk[kItemsPerThread];
  int v[kItemsPerThread];
  LoadF(temp.loadf).Load(keys_in + base, fk, valid, INFINITY);
  __syncthreads();
  LoadI(temp.loadi).Load(vals_in + base, v, valid, 0);
  __syncthreads();
  unsigned k[kItemsPerThread];
  for (int i = 0; i < kItemsPerThread; ++i) k[i] = encode_key(fk[i]);
  Sort(temp.sort).Sort(k, v);
  __syncthreads();
  int ranks[kItemsPerThread], running[kItemsPerThread];
  int total;
  Scan(temp.scan).ExclusiveSum(v, ranks, total);
  __syncthreads();
  Scan(temp.scan).InclusiveScan(v, running, cuda::maximum<int>{});
  __syncthreads();
  StoreU(temp.storeu).Store(keys_out + base, k, valid);
  __syncthreads();
  StoreI(temp.storei).Store(ranks_out + base, ranks, valid);
  __syncthreads();
  StoreI(temp.storei).Store(running_out + base, running, valid);
  if (threadIdx.x == 0) atomicAdd(&g_sorted_tiles, (unsigned long long)(total != 0));
}
