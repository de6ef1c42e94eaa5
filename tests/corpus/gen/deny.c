/*
 * deny: run a command with a syscall feature refused by a seccomp filter, so
 * that the corpus holds the fallback lines `loadscope load` really prints
 * when the feature is missing, not hand-written copies:
 *
 *   deny io_uring CMD...  io_uring_setup(2) fails with EPERM, as under
 *                         Docker's default seccomp profile or with
 *                         kernel.io_uring_disabled=2;
 *   deny o_direct CMD...  open/openat with O_DIRECT fail with EINVAL, as on
 *                         a file system without direct I/O (older tmpfs,
 *                         some FUSE and network file systems).
 *
 * cc -O2 -o deny deny.c   (x86-64 only; the corpus is generated on x86-64)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define ARG_LO(i) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[i]))
#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define FAIL(e) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[1], "io_uring") && strcmp(argv[1], "o_direct"))) {
		fprintf(stderr, "usage: deny io_uring|o_direct <command> [args...]\n");
		return 2;
	}
	struct sock_filter uring[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		ALLOW,
		LD_NR,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
		FAIL(EPERM),
		ALLOW,
	};
	struct sock_filter direct[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		ALLOW,
		LD_NR,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 0, 3),
		ARG_LO(2), /* openat(dirfd, path, flags, mode) */
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_DIRECT, 0, 5),
		FAIL(EINVAL),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_open, 0, 3),
		ARG_LO(1), /* open(path, flags, mode) */
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_DIRECT, 0, 1),
		FAIL(EINVAL),
		ALLOW,
	};
	struct sock_fprog prog;
	if (strcmp(argv[1], "io_uring") == 0)
		prog = (struct sock_fprog){.len = sizeof uring / sizeof uring[0], .filter = uring};
	else
		prog = (struct sock_fprog){.len = sizeof direct / sizeof direct[0], .filter = direct};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("seccomp");
		return 1;
	}
	execvp(argv[2], argv + 2);
	perror("execvp");
	return 127;
}
