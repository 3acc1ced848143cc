// SPDX-License-Identifier: GPL-2.0
/* Description: NVMe passthrough on the block node: bad input gets its errno or NVMe status; SQPOLL, async and links behave */
/*
 * Usage: nvme_bdev_errors [BLOCKDEV [CHARDEV [CTRLDEV]]]  (see t_nvme_open())
 *
 *   ring without SQE128, or without CQE32             -EOPNOTSUPP
 *   unknown cmd_op                                    -EOPNOTSUPP
 *   data buffer unmapped, in the kernel, read-only    -EFAULT
 *     (also 16 pages, unmapped: uring_cmd and ioctl)
 *   metadata on a namespace without metadata          -EINVAL
 *   metadata_len without a metadata pointer there     0, as the ioctl
 *   registered buffer with a vectored command         -EINVAL (6.1: a WARN)
 *   data_len over the controller's transfer limit     -EINVAL
 *   command flags, nsid of another namespace          -EINVAL
 *   non-zero SQE __pad1, unknown uring_cmd_flags      -EINVAL
 *   caller without CAP_SYS_ADMIN                      as the ioctl on the node
 *     (Identify Controller, a Read: 0 or -EACCES as the kernel's rule
 *     says; Identify of the namespace list, a vendor opcode: -EACCES)
 *   invalid admin or I/O opcode                       NVMe status 0x1, as the ioctl
 *   admin command on an IOPOLL ring                   -EOPNOTSUPP
 *   NVMe command on a block device of another driver  -EOPNOTSUPP
 *     (blk-mq, and bio-based: TEST_NULLB_BIO_DEV)
 * and: no error path keeps its request: the failing admin cases 40 times
 * over, more than the admin tag set holds (30 on PCIe, 32 on fabrics),
 * and an Identify must still complete; a queue freeze (a scheduler switch)
 * still completes, on a head on each path's queue;
 * block queries still answered on the NVMe block node (also on an
 * IOPOLL ring); the SQE is read at submission, so rewriting its slot right
 * after io_uring_submit() changes nothing; SQPOLL, IOSQE_ASYNC and linked
 * chains (a failed link cancels the rest) work as inline issue does.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/fs.h>

#include "t_nvme.h"

static struct t_nvme n;
static struct io_uring ring;
static unsigned char *buf;

#define OP_INVALID	0x7e	/* neither an admin nor an NVM opcode */

/* One command on @r and @fd; its res, or INT32_MIN without a completion. */
static int run(struct io_uring *r, int fd, __u32 cmd_op,
	       const struct nvme_uring_cmd *c, __u8 sqe_flags)
{
	struct t_cqe cqe;

	if (t_nvme_cmd(r, fd, cmd_op, c, sqe_flags, &cqe))
		return INT32_MIN;
	return cqe.res;
}

static void expect(const char *what, int res, int want)
{
	if (res == INT32_MIN)
		return;		/* already reported */
	if (res != want)
		t_error("%s: res %s, expected %s", what, t_nvme_res_str(res),
			t_nvme_res_str(want));
	else
		t_info("%s: %s", what, t_nvme_res_str(res));
}

static void identify(struct nvme_uring_cmd *c, void *to)
{
	uringcmd_nvme_identify(c, 0, NVME_IDENTIFY_CNS_CTRL, to);
}

static void test_rings(void)
{
	struct nvme_uring_cmd cmd;
	struct io_uring r;
	struct io_uring_sqe *sqe;
	struct t_cqe c;
	int ret, bsz;

	/* 64-byte SQEs: only the first 16 bytes of the command fit */
	ret = t_ring_init(&r, 4, 0);
	if (ret)
		t_die("io_uring_queue_init: %s", t_errname(ret));
	identify(&cmd, buf);
	sqe = t_get_sqe(&r);
	t_prep_uring_cmd(&r, sqe, n.bfd, NVME_URING_CMD_ADMIN, &cmd, 16);
	if (!t_submit_wait_one(&r, &c, T_NVME_TIMEOUT_MS))
		expect("ADMIN on a 64-byte SQE ring", c.res, -EOPNOTSUPP);
	else
		t_error("ADMIN on a 64-byte SQE ring: no completion");
	t_cq_quiet(&r, "64-byte SQE ring");
	io_uring_queue_exit(&r);

	ret = t_ring_init(&r, 4, IORING_SETUP_SQE128);
	if (ret)
		t_die("io_uring_queue_init(SQE128): %s", t_errname(ret));
	uringcmd_nvme_rw(&cmd, nvme_cmd_read, n.nsid, buf, n.lbs, 0, 1);
	expect("IO on an SQE128 ring without CQE32",
	       run(&r, n.bfd, NVME_URING_CMD_IO, &cmd, 0), -EOPNOTSUPP);
	t_cq_quiet(&r, "SQE128 ring without CQE32");
	io_uring_queue_exit(&r);

	/* IOPOLL: no polling for admin commands, as on /dev/nvmeX */
	ret = t_nvme_ring(&r, 4, IORING_SETUP_IOPOLL);
	if (ret)
		t_die("io_uring_queue_init(IOPOLL): %s", t_errname(ret));
	identify(&cmd, buf);
	expect("ADMIN on an IOPOLL ring",
	       run(&r, n.bfd, NVME_URING_CMD_ADMIN, &cmd, 0), -EOPNOTSUPP);
	if (ioctl(n.bfd, BLKSSZGET, &bsz))
		t_die("BLKSSZGET: %m");
	sqe = t_get_sqe(&r);
	t_prep_block_query(&r, sqe, n.bfd, BLKSSZGET, 0, 0);
	if (t_submit_wait_one(&r, &c, T_NVME_TIMEOUT_MS))
		t_error("BLKSSZGET on an IOPOLL ring: no completion");
	else if (c.res != bsz)
		t_error("BLKSSZGET query on an IOPOLL ring: res %s, expected %d",
			t_res_str(c.res), bsz);
	else
		t_info("BLKSSZGET query on an IOPOLL ring: %d", c.res);
	t_cq_quiet(&r, "IOPOLL ring");
	io_uring_queue_exit(&r);
}

/*
 * A read of more pages than the block layer pins through its on-stack
 * array (UIO_FASTIOV, 8) into unmapped memory: -EFAULT from uring_cmd and
 * from the ioctl alike, many times over. The page array the extraction
 * allocated must be freed on that error (6.12's bio_map_user_iov() left
 * it: kmemleak on the debug kernel).
 */
static void unmapped_many_pages(void)
{
	__u32 bytes = 64 * 1024, i;
	struct nvme_uring_cmd cmd;
	int bad = 0;

	if (n.max_bytes < bytes)
		bytes = n.max_bytes;
	if (bytes <= 8 * 4096 || bytes < n.lbs) {
		t_info("not tried: reads of many pages (%s takes %u bytes at most)",
		       n.bdev, n.max_bytes);
		return;
	}
	/* 0x1000 and the pages after it: below mmap_min_addr, never mapped */
	uringcmd_nvme_rw(&cmd, nvme_cmd_read, n.nsid, (void *)0x1000, bytes, 0,
			 bytes / n.lbs);
	for (i = 0; i < 32; i++) {
		bad += run(&ring, n.bfd, NVME_URING_CMD_IO, &cmd, 0) != -EFAULT;
		bad += t_nvme_ioctl(n.bfd, NVME_IOCTL_IO_CMD, &cmd, NULL) != -EFAULT;
	}
	if (bad)
		t_error("%d of 64 reads of %u bytes into unmapped memory did not fail with -EFAULT (uring_cmd and ioctl)",
			bad, bytes);
}

static void test_input(void)
{
	struct nvme_uring_cmd cmd;
	struct io_uring_sqe *sqe;
	void *ro;
	struct t_cqe c;
	int want, res;

	identify(&cmd, buf);
	expect("unknown cmd_op", run(&ring, n.bfd, 0x4e99, &cmd, 0),
	       -EOPNOTSUPP);
	expect("the ioctl number NVME_IOCTL_ADMIN_CMD as cmd_op",
	       run(&ring, n.bfd, NVME_IOCTL_ADMIN_CMD, &cmd, 0), -EOPNOTSUPP);

	/* bad data buffers */
	identify(&cmd, (void *)0x1000);
	expect("identify into an unmapped address",
	       run(&ring, n.bfd, NVME_URING_CMD_ADMIN, &cmd, 0), -EFAULT);
	identify(&cmd, (void *)0xffff888000000000ULL);
	expect("identify into a kernel address",
	       run(&ring, n.bfd, NVME_URING_CMD_ADMIN, &cmd, 0), -EFAULT);
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED)
		t_die("mmap: %m");
	identify(&cmd, ro);
	expect("identify into a read-only mapping",
	       run(&ring, n.bfd, NVME_URING_CMD_ADMIN, &cmd, 0), -EFAULT);
	uringcmd_nvme_rw(&cmd, nvme_cmd_read, n.nsid, (void *)0x1000, n.lbs, 0, 1);
	expect("IO read into an unmapped address",
	       run(&ring, n.bfd, NVME_URING_CMD_IO, &cmd, 0), -EFAULT);
	munmap(ro, 4096);
	unmapped_many_pages();

	/* metadata the namespace does not have */
	uringcmd_nvme_rw(&cmd, nvme_cmd_read, n.nsid, buf, n.lbs, 0, 1);
	cmd.metadata = (__u64)(uintptr_t)(buf + 8192);
	cmd.metadata_len = 8;
	expect("IO read with a metadata buffer on a namespace without metadata",
	       run(&ring, n.bfd, NVME_URING_CMD_IO, &cmd, 0), -EINVAL);

	/*
	 * metadata_len without a metadata pointer: no metadata is mapped, and
	 * the read completes as through the ioctl, which checks the pointer
	 * (drivers-nvme patch "nvme: complete uring_cmd passthrough metadata
	 * only when it was mapped": before it the completion copied
	 * metadata_len bytes from a NULL kernel buffer, -EFAULT). Not sent
	 * to a namespace with separate metadata: the controller would take
	 * MPTR 0 as an address.
	 */
	if (t_nvme_ioctl64(n.bfd, NVME_IOCTL_IO64_CMD, &cmd, NULL) == -EINVAL) {
		uringcmd_nvme_rw(&cmd, nvme_cmd_read, n.nsid, buf, n.lbs, 0, 1);
		cmd.metadata_len = 8;
		want = t_nvme_ioctl64(n.bfd, NVME_IOCTL_IO64_CMD, &cmd, NULL);
		expect("IO read with metadata_len 8 and no metadata pointer (as the ioctl)",
		       run(&ring, n.bfd, NVME_URING_CMD_IO, &cmd, 0), want);
		if (want)
			t_error("the ioctl with metadata_len 8 and no metadata pointer: %s, not 0",
				t_nvme_res_str(want));
		if (n.chr[0] && access(n.chr, R_OK) == 0) {
			int cfd = open(n.chr, O_RDONLY | O_CLOEXEC);

			if (cfd < 0)
				t_error("open %s: %m", n.chr);
			else
				expect("the same on the char device",
				       run(&ring, cfd, NVME_URING_CMD_IO, &cmd, 0), want);
			if (cfd >= 0)
				close(cfd);
		}
	}

	/*
	 * IORING_URING_CMD_FIXED with a vectored command: 6.1 WARNed and
	 * leaked the request (fixed by the drivers-nvme patch "nvme: reject
	 * vectored fixed-buffer passthrough without a WARN or a leak"); the
	 * leak check below and run.sh's kernel log check see both.
	 */
	{
		struct iovec reg = { .iov_base = buf + 8192, .iov_len = 4096 };
		struct iovec vec = { .iov_base = buf + 8192, .iov_len = n.lbs };
		__u32 ops[] = { NVME_URING_CMD_IO_VEC, NVME_URING_CMD_ADMIN_VEC };
		unsigned int i;

		if (io_uring_register_buffers(&ring, &reg, 1))
			t_die("io_uring_register_buffers failed");
		for (i = 0; i < 2; i++) {
			if (i)
				identify(&cmd, &vec);
			else
				uringcmd_nvme_rw(&cmd, nvme_cmd_read, n.nsid, &vec, 1, 0, 1);
			cmd.data_len = 1;	/* one iovec */
			sqe = t_get_sqe(&ring);
			t_nvme_prep(&ring, sqe, n.bfd, ops[i], &cmd, 1);
			sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
			sqe->buf_index = 0;
			if (!t_submit_wait_one(&ring, &c, T_NVME_TIMEOUT_MS))
				expect(i ? "ADMIN_VEC with a registered buffer" :
				       "IO_VEC with a registered buffer", c.res, -EINVAL);
			else
				t_error("%s with a registered buffer: no completion",
					i ? "ADMIN_VEC" : "IO_VEC");
		}
		io_uring_unregister_buffers(&ring);
	}

	/* more than the controller can transfer in one command */
	if (n.max_bytes && (__u64)n.max_bytes + 4096 <= 4 << 20) {
		__u32 len = n.max_bytes + 4096;
		void *big = t_alloc(len);

		uringcmd_nvme_rw(&cmd, nvme_cmd_read, n.nsid, big, len, 0,
			  len / n.lbs);
		expect("IO read of max_hw_sectors_kb + 4 KiB",
		       run(&ring, n.bfd, NVME_URING_CMD_IO, &cmd, 0), -EINVAL);
		free(big);
	} else {
		t_info("# over-MDTS case not run: max_hw_sectors_kb gives %u bytes (0 or over 4 MiB - 4 KiB)",
		       n.max_bytes);
	}

	/* fields the ABI reserves or validates */
	identify(&cmd, buf);
	cmd.flags = 1;
	expect("command flags set",
	       run(&ring, n.bfd, NVME_URING_CMD_ADMIN, &cmd, 0), -EINVAL);
	uringcmd_nvme_rw(&cmd, nvme_cmd_read, n.nsid, buf, n.lbs, 0, 1);
	cmd.flags = 1;
	expect("I/O command flags set",
	       run(&ring, n.bfd, NVME_URING_CMD_IO, &cmd, 0), -EINVAL);
	uringcmd_nvme_rw(&cmd, nvme_cmd_read, n.nsid + 100, buf, n.lbs, 0, 1);
	expect("IO with the nsid of another namespace",
	       run(&ring, n.bfd, NVME_URING_CMD_IO, &cmd, 0), -EINVAL);
	identify(&cmd, buf);
	sqe = t_get_sqe(&ring);
	t_nvme_prep(&ring, sqe, n.bfd, NVME_URING_CMD_ADMIN, &cmd, 1);
	sqe->__pad1 = 1;
	if (!t_submit_wait_one(&ring, &c, T_NVME_TIMEOUT_MS))
		expect("non-zero SQE __pad1", c.res, -EINVAL);
	else
		t_error("non-zero SQE __pad1: no completion");
	sqe = t_get_sqe(&ring);
	t_nvme_prep(&ring, sqe, n.bfd, NVME_URING_CMD_ADMIN, &cmd, 1);
	sqe->uring_cmd_flags = 1U << 7;
	if (!t_submit_wait_one(&ring, &c, T_NVME_TIMEOUT_MS))
		expect("unknown uring_cmd_flags", c.res, -EINVAL);
	else
		t_error("unknown uring_cmd_flags: no completion");

	/* invalid opcodes: the NVMe status, as the ioctl gets it */
	uringcmd_nvme_cmd(&cmd, OP_INVALID, 0, NULL, 0, 0, 0);
	want = t_nvme_ioctl(n.bfd, NVME_IOCTL_ADMIN_CMD, &cmd, NULL);
	res = run(&ring, n.bfd, NVME_URING_CMD_ADMIN, &cmd, 0);
	if (!t_nvme_is_status(want, NVME_SC_INVALID_OPCODE))
		t_error("ioctl with admin opcode %#x: %s, expected Invalid Command Opcode",
			OP_INVALID, t_nvme_res_str(want));
	expect("invalid admin opcode", res, want);
	uringcmd_nvme_cmd(&cmd, OP_INVALID, n.nsid, NULL, 0, 0, 0);
	want = t_nvme_ioctl(n.bfd, NVME_IOCTL_IO_CMD, &cmd, NULL);
	res = run(&ring, n.bfd, NVME_URING_CMD_IO, &cmd, 0);
	if (!t_nvme_is_status(want, NVME_SC_INVALID_OPCODE))
		t_error("ioctl with I/O opcode %#x: %s, expected Invalid Command Opcode",
			OP_INVALID, t_nvme_res_str(want));
	expect("invalid I/O opcode", res, want);
}

/* Write @val to @path in a child; false if that does not end in @ms. */
static bool write_bounded(const char *path, const char *val, unsigned int ms)
{
	unsigned long long end = t_now_ms() + ms;
	int status;
	pid_t pid = fork();

	if (pid < 0)
		t_die("fork: %m");
	if (!pid) {
		int fd = open(path, O_WRONLY);

		_exit(fd >= 0 && write(fd, val, strlen(val)) ==
		      (ssize_t)strlen(val) ? 0 : 1);
	}
	while (t_now_ms() < end) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) && !WEXITSTATUS(status);
		t_sleep_ms(20);
	}
	return false;
}

/*
 * Every failed command above must have given its request back: switching
 * the I/O scheduler freezes the queue, which waits for every request of
 * it. A leaked one makes that wait for ever (and a controller reset too).
 */
static void freeze(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/block/%s/queue/scheduler", name);
	if (!write_bounded(path, "mq-deadline", T_NVME_TIMEOUT_MS) ||
	    !write_bounded(path, "none", T_NVME_TIMEOUT_MS))
		t_error("%s: switching the scheduler (a queue freeze) failed or hung: a request leaked by an error path?",
			name);
	else
		t_info("%s: queue freeze after the error cases: no request left behind",
		       name);
}

/*
 * Head or not, the I/O requests live on a namespace queue: the block
 * node's own, or each path's (nvmeXcZnY, hidden, beside head nvmeXnY).
 */
static void test_no_leak(void)
{
	unsigned int subsys, ns;
	char pat[64];
	glob_t g;
	size_t i;

	if (!n.head) {
		freeze(n.name);
		return;
	}
	if (sscanf(n.name, "nvme%un%u", &subsys, &ns) != 2)
		t_die("%s: not a head's name", n.name);
	snprintf(pat, sizeof(pat), "/sys/block/nvme%uc*n%u", subsys, ns);
	if (glob(pat, 0, NULL, &g)) {
		t_error("head %s: no path disks %s", n.name, pat);
		return;
	}
	for (i = 0; i < g.gl_pathc; i++)
		freeze(strrchr(g.gl_pathv[i], '/') + 1);
	globfree(&g);
}

/*
 * Admin commands go to the controller's admin queue, which no namespace
 * freeze sees: the failing admin cases, more times than its tag set has
 * tags (30 on PCIe, 32 on fabrics), and then an Identify must complete.
 * A leaked tag per failure would leave it none: the Identify waits for
 * ever (io-wq blocks for a tag) and the deadline fails it.
 */
#define ADMIN_ROUNDS	40

static void test_admin_leak(void)
{
	struct iovec reg = { .iov_base = buf + 8192, .iov_len = 4096 };
	struct iovec vec = { .iov_base = buf + 8192, .iov_len = 4096 };
	struct nvme_uring_cmd cmd;
	struct io_uring_sqe *sqe;
	struct t_cqe c;
	unsigned int i, bad = 0;
	int res;

	if (io_uring_register_buffers(&ring, &reg, 1))
		t_die("io_uring_register_buffers failed");
	for (i = 0; i < ADMIN_ROUNDS; i++) {
		identify(&cmd, (void *)0x1000);
		bad += run(&ring, n.bfd, NVME_URING_CMD_ADMIN, &cmd, 0) != -EFAULT;
		identify(&cmd, (void *)0xffff888000000000ULL);
		bad += run(&ring, n.bfd, NVME_URING_CMD_ADMIN, &cmd, 0) != -EFAULT;
		identify(&cmd, &vec);
		cmd.data_len = 1;
		sqe = t_get_sqe(&ring);
		t_nvme_prep(&ring, sqe, n.bfd, NVME_URING_CMD_ADMIN_VEC, &cmd, 1);
		sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
		sqe->buf_index = 0;
		if (t_submit_wait_one(&ring, &c, T_NVME_TIMEOUT_MS) ||
		    c.res != -EINVAL)
			bad++;
	}
	io_uring_unregister_buffers(&ring);
	if (bad)
		t_error("admin error cases x %d: %u did not fail as they did once",
			ADMIN_ROUNDS, bad);
	identify(&cmd, buf);
	res = run(&ring, n.bfd, NVME_URING_CMD_ADMIN, &cmd, 0);
	if (res == INT32_MIN)
		t_error("Identify after %d rounds of failing admin commands: no completion (admin tags leaked?)",
			ADMIN_ROUNDS);
	else
		expect("Identify after the failing admin commands", res, 0);
}

static void set_sys_admin(cap_flag_value_t v)
{
	cap_value_t cap = CAP_SYS_ADMIN;
	cap_t caps = cap_get_proc();

	if (!caps || cap_set_flag(caps, CAP_EFFECTIVE, 1, &cap, v) ||
	    cap_set_proc(caps))
		t_die("cannot change CAP_SYS_ADMIN: %m");
	cap_free(caps);
}

/*
 * Without CAP_SYS_ADMIN the block node answers as the ioctl on it: 6.1
 * refuses every command, later kernels (nvme_cmd_allowed()) allow Identify
 * Controller and the I/O commands the controller marks harmless, so the
 * ioctl's answer (0 or -EACCES) is the expectation there. Identify of the
 * active namespace list and a vendor-specific I/O opcode are refused on
 * every kernel: -EACCES through both.
 */
static void test_caps(void)
{
	static const struct {
		const char *what;
		bool admin;
		bool always_refused;
	} cases[] = {
		{ "Identify Controller", true, false },
		{ "Identify active namespace list", true, true },
		{ "Read", false, false },
		{ "vendor-specific I/O opcode 0x82", false, true },
	};
	struct nvme_uring_cmd cmd;
	unsigned int k;
	char w[128];
	int want;

	set_sys_admin(CAP_CLEAR);
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		switch (k) {
		case 0:
			identify(&cmd, buf);
			break;
		case 1:
			uringcmd_nvme_identify(&cmd, 0, NVME_IDENTIFY_CNS_NS_ACTIVE_LIST, buf);
			break;
		case 2:
			uringcmd_nvme_rw(&cmd, nvme_cmd_read, n.nsid, buf, n.lbs, 0, 1);
			break;
		default:
			uringcmd_nvme_rw(&cmd, nvme_cmd_read, n.nsid, buf, n.lbs, 0, 1);
			cmd.opcode = 0x82;	/* vendor specific, data from the controller */
			break;
		}
		want = t_nvme_ioctl(n.bfd, cases[k].admin ? NVME_IOCTL_ADMIN_CMD :
				    NVME_IOCTL_IO_CMD, &cmd, NULL);
		if (cases[k].always_refused ? want != -EACCES :
		    want != 0 && want != -EACCES)
			t_error("ioctl(%s) %s without CAP_SYS_ADMIN: %s, expected %s",
				cases[k].admin ? "NVME_IOCTL_ADMIN_CMD" : "NVME_IOCTL_IO_CMD",
				cases[k].what, t_nvme_res_str(want),
				cases[k].always_refused ? "-EACCES" : "0 or -EACCES");
		snprintf(w, sizeof(w), "%s %s without CAP_SYS_ADMIN (the ioctl: %s)",
			 cases[k].admin ? "ADMIN" : "IO", cases[k].what,
			 t_nvme_res_str(want));
		expect(w, run(&ring, n.bfd, cases[k].admin ? NVME_URING_CMD_ADMIN :
			      NVME_URING_CMD_IO, &cmd, 0), want);
	}
	set_sys_admin(CAP_SET);
	uringcmd_nvme_rw(&cmd, nvme_cmd_read, n.nsid, buf, n.lbs, 0, 1);
	expect("IO with CAP_SYS_ADMIN back",
	       run(&ring, n.bfd, NVME_URING_CMD_IO, &cmd, 0), 0);
}

static void other_bdev(const char *path, const char *what)
{
	char *args[] = { "nvme_bdev_errors", (char *)path, NULL };
	struct nvme_uring_cmd cmd;
	char w[128];
	struct t_bdev b;

	t_bdev_open(&b, path[0] ? 2 : 1, args, O_RDWR);
	uringcmd_nvme_rw(&cmd, nvme_cmd_read, 1, buf, 512, 0, 1);
	snprintf(w, sizeof(w), "IO on %s", what);
	expect(w, run(&ring, b.fd, NVME_URING_CMD_IO, &cmd, 0), -EOPNOTSUPP);
	identify(&cmd, buf);
	snprintf(w, sizeof(w), "ADMIN on %s", what);
	expect(w, run(&ring, b.fd, NVME_URING_CMD_ADMIN, &cmd, 0), -EOPNOTSUPP);
	t_bdev_close(&b);
}

/*
 * NVMe commands on block devices of other drivers: a blk-mq one (null_blk,
 * else a loop device of its own) and, where run.sh made one
 * (TEST_NULLB_BIO_DEV), a bio-based null_blk (queue_mode=0), whose
 * cmd_ops go to its disk's fops (which have no uring_cmd).
 */
static void test_other_bdev(void)
{
	const char *bio = getenv("TEST_NULLB_BIO_DEV");

	other_bdev(access("/dev/nullb0", F_OK) ? "" : "/dev/nullb0",
		   "a non-NVMe block device");
	if (bio && *bio)
		other_bdev(bio, "a bio-based block device (null_blk queue_mode=0)");
}

static void test_issue_paths(void)
{
	unsigned char *a = t_alloc(4096), *b = t_alloc(4096);
	unsigned char *want = t_alloc(4096), *rd = t_alloc(4096);
	struct nvme_uring_cmd cmd, other;
	struct io_uring_sqe *sqe;
	struct io_uring sq;
	struct t_cqe c;
	int i, ret;

	identify(&cmd, want);
	if (t_nvme_ioctl(n.bfd, NVME_IOCTL_ADMIN_CMD, &cmd, NULL))
		t_die("ioctl identify failed");

	/* rewrite the SQE slot right after submission: no effect */
	for (i = 0; i < 2; i++) {
		memset(a, 0, 4096);
		memset(b, 0, 4096);
		identify(&cmd, a);
		sqe = t_get_sqe(&ring);
		t_nvme_prep(&ring, sqe, n.bfd, NVME_URING_CMD_ADMIN, &cmd, 7);
		sqe->flags = i ? IOSQE_ASYNC : 0;
		ret = io_uring_submit(&ring);
		identify(&other, b);
		other.cdw10 = NVME_IDENTIFY_CNS_NS;
		memcpy(sqe->cmd, &other, sizeof(other));
		sqe->cmd_op = 0xdead;
		if (ret != 1 || t_wait_cqe(&ring, &c, T_NVME_TIMEOUT_MS)) {
			t_error("SQE reuse: submit %d or no completion", ret);
			continue;
		}
		expect(i ? "identify, SQE rewritten after submit (IOSQE_ASYNC)" :
		       "identify, SQE rewritten after submit", c.res, 0);
		t_compare("identify of the submitted SQE", a, want, 4096);
		if (t_memcmp_off(b, t_alloc(4096), 4096) >= 0)
			t_error("the rewritten SQE's buffer was written to");
	}

	/* IOSQE_ASYNC: issued from io-wq, blocking allocation allowed */
	memset(a, 0, 4096);
	identify(&cmd, a);
	expect("identify with IOSQE_ASYNC",
	       run(&ring, n.bfd, NVME_URING_CMD_ADMIN, &cmd, IOSQE_ASYNC), 0);
	t_compare("identify with IOSQE_ASYNC", a, want, 4096);

	/* a linked chain: identify -> read -> identify */
	memset(a, 0, 4096);
	memset(b, 0, 4096);
	identify(&cmd, a);
	sqe = t_get_sqe(&ring);
	t_nvme_prep(&ring, sqe, n.bfd, NVME_URING_CMD_ADMIN, &cmd, 1);
	sqe->flags = IOSQE_IO_LINK;
	uringcmd_nvme_rw(&cmd, nvme_cmd_read, n.nsid, rd, n.lbs, 0, 1);
	sqe = t_get_sqe(&ring);
	t_nvme_prep(&ring, sqe, n.bfd, NVME_URING_CMD_IO, &cmd, 2);
	sqe->flags = IOSQE_IO_LINK;
	identify(&cmd, b);
	sqe = t_get_sqe(&ring);
	t_nvme_prep(&ring, sqe, n.bfd, NVME_URING_CMD_ADMIN, &cmd, 3);
	if (!t_submit(&ring, 3)) {
		for (i = 0; i < 3; i++) {
			if (t_wait_cqe(&ring, &c, T_NVME_TIMEOUT_MS)) {
				t_error("linked chain: completion %d missing", i);
				break;
			}
			if (c.user_data != (__u64)i + 1 || c.res)
				t_error("linked chain: completion %d: user_data %llu res %s",
					i, (unsigned long long)c.user_data,
					t_nvme_res_str(c.res));
		}
		t_compare("linked identify 1", a, want, 4096);
		t_compare("linked identify 2", b, want, 4096);
	}

	/* a failing link cancels the rest of the chain */
	uringcmd_nvme_rw(&cmd, nvme_cmd_read, n.nsid + 100, rd, n.lbs, 0, 1);
	sqe = t_get_sqe(&ring);
	t_nvme_prep(&ring, sqe, n.bfd, NVME_URING_CMD_IO, &cmd, 1);
	sqe->flags = IOSQE_IO_LINK;
	identify(&cmd, b);
	sqe = t_get_sqe(&ring);
	t_nvme_prep(&ring, sqe, n.bfd, NVME_URING_CMD_ADMIN, &cmd, 2);
	if (!t_submit(&ring, 2)) {
		int want_res[2] = { -EINVAL, -ECANCELED };

		for (i = 0; i < 2; i++) {
			if (t_wait_cqe(&ring, &c, T_NVME_TIMEOUT_MS)) {
				t_error("failing chain: completion %d missing", i);
				break;
			}
			if (c.user_data != (__u64)i + 1 || c.res != want_res[i])
				t_error("failing chain: completion %d: user_data %llu res %s, expected %s",
					i, (unsigned long long)c.user_data,
					t_nvme_res_str(c.res),
					t_nvme_res_str(want_res[i]));
		}
	}

	/* SQPOLL: issued by the kernel's submission thread */
	ret = t_nvme_ring(&sq, 4, IORING_SETUP_SQPOLL);
	if (ret) {
		t_error("io_uring_queue_init(SQPOLL|SQE128|CQE32): %s",
			t_errname(ret));
	} else {
		memset(a, 0, 4096);
		identify(&cmd, a);
		expect("identify on an SQPOLL ring",
		       run(&sq, n.bfd, NVME_URING_CMD_ADMIN, &cmd, 0), 0);
		t_compare("identify on an SQPOLL ring", a, want, 4096);
		uringcmd_nvme_rw(&cmd, nvme_cmd_read, n.nsid, rd, n.lbs, 0, 1);
		expect("IO read on an SQPOLL ring",
		       run(&sq, n.bfd, NVME_URING_CMD_IO, &cmd, 0), 0);
		t_cq_quiet(&sq, "SQPOLL ring");
		io_uring_queue_exit(&sq);
	}
	free(a);
	free(b);
	free(want);
	free(rd);
}

int main(int argc, char **argv)
{
	int ret;

	t_nvme_open(&n, argc, argv);
	buf = t_alloc(16384);
	ret = t_nvme_ring(&ring, 8, 0);
	if (ret)
		t_die("io_uring_queue_init(SQE128|CQE32): %s", t_errname(ret));
	test_rings();
	test_input();
	test_caps();
	test_admin_leak();
	test_no_leak();
	test_issue_paths();
	test_other_bdev();
	/* every completion was matched: nothing may be left over */
	t_cq_quiet(&ring, "the test's ring at exit");
	io_uring_queue_exit(&ring);
	t_nvme_close(&n);
	/* the page arrays of unmapped_many_pages(), on the debug kernel */
	t_kmemleak_check("blk_rq_map_user_iov", "reads of 16 unmapped pages");
	return t_result();
}
