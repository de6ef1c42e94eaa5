/*
 * h2d_bandwidth: the plain pinned host-to-device bandwidth of this machine,
 * the limit bench/gpu-check.sh compares the loader against (issue 5's goal:
 * H2D from the pinned arena >= 0.9x this figure).
 *
 * One cudaMallocHost buffer, one cudaMalloc buffer, one warm-up copy, then
 * REPEATS cudaMemcpy of the whole buffer, timed with CUDA events; prints the
 * median and the best in GiB/s on one line. Uses the runtime API directly
 * (it is a benchmark, linked with -lcudart, not part of the library).
 *
 * Build: cc -O2 -I/usr/local/cuda/include h2d_bandwidth.c -L/usr/local/cuda/lib64 -lcudart
 * Usage: h2d_bandwidth [GIB (default 1)] [REPEATS (default 5)] [DEVICE (default 0)]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#define CK(x)                                                                            \
	do {                                                                             \
		cudaError_t e_ = (x);                                                    \
		if (e_ != cudaSuccess) {                                                 \
			fprintf(stderr, "h2d_bandwidth: %s: %s (%s)\n", #x,              \
				cudaGetErrorString(e_), cudaGetErrorName(e_));           \
			return 1;                                                        \
		}                                                                        \
	} while (0)

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	double gib = argc > 1 ? atof(argv[1]) : 1.0;
	int reps = argc > 2 ? atoi(argv[2]) : 5;
	int dev = argc > 3 ? atoi(argv[3]) : 0;
	if (!(gib > 0) || reps < 1 || reps > 100) {
		fprintf(stderr, "usage: h2d_bandwidth [GIB] [REPEATS] [DEVICE]\n");
		return 2;
	}
	size_t bytes = (size_t)(gib * 1073741824.0);
	int n = 0;
	CK(cudaGetDeviceCount(&n));
	if (dev >= n) {
		fprintf(stderr, "h2d_bandwidth: device %d of %d\n", dev, n);
		return 1;
	}
	struct cudaDeviceProp prop;
	memset(&prop, 0, sizeof(prop));
	CK(cudaSetDevice(dev));
	CK(cudaGetDeviceProperties(&prop, dev));
	void *h = NULL, *d = NULL;
	CK(cudaMallocHost(&h, bytes));
	memset(h, 0x5a, bytes);
	CK(cudaMalloc(&d, bytes));
	cudaEvent_t a, b;
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	CK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice)); /* warm-up */
	double *r = calloc((size_t)reps, sizeof(*r));
	if (!r)
		return 1;
	for (int i = 0; i < reps; i++) {
		float ms = 0;
		CK(cudaEventRecord(a, 0));
		CK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
		CK(cudaEventRecord(b, 0));
		CK(cudaEventSynchronize(b));
		CK(cudaEventElapsedTime(&ms, a, b));
		r[i] = (double)bytes / 1073741824.0 / (ms / 1e3);
	}
	qsort(r, (size_t)reps, sizeof(*r), cmp);
	printf("h2d_bandwidth: device=\"%s\" bytes=%zu repeats=%d median_gibps=%.2f best_gibps=%.2f\n",
	       prop.name, bytes, reps, r[reps / 2], r[reps - 1]);
	free(r);
	cudaFree(d);
	cudaFreeHost(h);
	return 0;
}
