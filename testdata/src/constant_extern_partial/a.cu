// An extern __constant__ array that no input of a partial link defines (its definition
// comes in the final link): nvlink -r places it at -1 and applies the constant-bank
// relocations, so its final link reads c[0x3][0x3] for c[1] (docs/differences.md);
// cubin-ld keeps the relocations for the final link. The executable link fails (undefined).
extern __constant__ int table[4];

__global__ void read_table(int *out) { out[0] = table[1] + table[3]; }
