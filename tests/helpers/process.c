/*
 * The test process's own state: see process.h.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "helpers/process.h"

int lsct_vma_read(const void *addr, size_t len, struct lsct_vma *out)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	uintptr_t lo = (uintptr_t)addr, hi = lo + len, next = lo;
	int in = 0;

	memset(out, 0, sizeof *out);
	out->all_hg = out->all_nh = 1;
	out->contiguous = 1;
	if (!f)
		return -errno;
	while (fgets(line, sizeof line, f)) {
		uintptr_t a, b;
		unsigned long long kib;
		/* A header "lo-hi perms ..."; field names never parse as hex-hex. */
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &a, &b) == 2) {
			in = a < hi && b > lo;
			if (in) {
				if (a > next)
					out->contiguous = 0;
				next = b;
				out->mappings++;
				out->bytes += b - a;
			}
			continue;
		}
		if (!in)
			continue;
		if (sscanf(line, "Rss: %llu kB", &kib) == 1)
			out->rss_bytes += kib << 10;
		else if (sscanf(line, "AnonHugePages: %llu kB", &kib) == 1)
			out->anon_huge_bytes += kib << 10;
		else if (sscanf(line, "Locked: %llu kB", &kib) == 1)
			out->locked_bytes += kib << 10;
		else if (strncmp(line, "VmFlags:", 8) == 0) {
			int hg = strstr(line, " hg") != NULL, nh = strstr(line, " nh") != NULL;
			out->all_hg &= hg;
			out->all_nh &= nh;
			out->any_hg |= hg;
			out->any_nh |= nh;
		}
	}
	fclose(f);
	if (next < hi)
		out->contiguous = 0;
	if (!out->mappings)
		out->all_hg = out->all_nh = out->contiguous = 0;
	return 0;
}

int64_t lsct_rss_bytes(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long long kib = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "VmRSS: %lld kB", &kib) == 1)
			break;
	fclose(f);
	return kib < 0 ? -1 : (int64_t)kib << 10;
}

int lsct_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

int lsct_drop_ipc_lock(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &h, d) < 0)
		return -errno;
	d[CAP_IPC_LOCK / 32].effective &= ~(1u << (CAP_IPC_LOCK % 32));
	if (syscall(SYS_capset, &h, d) < 0)
		return -errno;
	return 0;
}
