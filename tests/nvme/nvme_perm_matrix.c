// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the permission matrix of NVMe passthrough: for each caller
 * (root; root without CAP_SYS_ADMIN; user nobody without capabilities),
 * each node (block node, /dev/ngXnY, controller) and each open mode
 * (read-only, read-write; opened by root, then the caller takes over the
 * file), uring_cmd gives exactly what the passthrough ioctl of the kernel
 * under test gives the same caller on the same file: Identify (admin), a
 * Read and a Write (I/O), and a block query.
 *
 * Where kernels differ, the ioctl is the expectation: 6.1 asks for
 * CAP_SYS_ADMIN for every passthrough command (drivers-nvme/README.md's
 * table); 6.2 and later (nvme_cmd_allowed()) let a caller without it send
 * Identify Controller/Namespace, and the I/O commands the controller's
 * Commands Supported and Effects log marks harmless, a command that writes
 * only on a file open for writing. What every kernel answers, checked as
 * it is, ioctl and uring_cmd alike:
 *
 *                         root            without CAP_SYS_ADMIN (both callers)
 *   identify (any node)   0               the ioctl's answer, 0 or -EACCES
 *   read (ns nodes)       0               the ioctl's answer, 0 or -EACCES
 *   write (ns nodes)      0               read-only open: -EACCES;
 *                                         read-write: the ioctl's, 0 or -EACCES
 *   format, ns-mgmt,      (not tried)     -EACCES
 *   fw-commit
 *   block query (bdev)    answer          answer
 *
 * and user nobody gets what root without CAP_SYS_ADMIN gets (the kernel
 * looks at the capability, not at the uid). /dev/ngXnY has no admin
 * uring_cmd (-ENOTTY for every caller, where its ioctl runs the command):
 * upstream's, kept as it is.
 *
 * Commands with side effects (Format NVM, Namespace Management, Firmware
 * Commit) are tried without CAP_SYS_ADMIN only, and refused on every path
 * of every kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t_nvme.h"

enum caller { ROOT, ROOT_NOCAP, NOBODY, NR_CALLERS };
static const char *const caller_name[] = { "root", "root -CAP_SYS_ADMIN", "nobody" };

enum node { BDEV, CHR, CTRL, NR_NODES };

static struct t_nvme n;
static const char *node_path[NR_NODES];
static void *buf;
static __u32 lba;	/* the block read and written back */
static int bsz;		/* BLKBSZGET as root */

static void drop_sys_admin(void)
{
	cap_value_t cap = CAP_SYS_ADMIN;
	cap_t caps = cap_get_proc();

	if (!caps || cap_set_flag(caps, CAP_EFFECTIVE, 1, &cap, CAP_CLEAR) ||
	    cap_set_proc(caps))
		t_die("cannot drop CAP_SYS_ADMIN: %m");
	cap_free(caps);
}

/* Become @who; the open files stay. */
static void become(enum caller who)
{
	if (who == ROOT_NOCAP)
		drop_sys_admin();
	if (who == NOBODY && (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
			      setresuid(65534, 65534, 65534)))
		t_die("cannot become nobody: %m");
}

/* uring_cmd result and ioctl result of one command for the caller. */
struct cell {
	int uring;
	int ioctl;
};

static int uring_one(int fd, __u32 cmd_op, const struct nvme_uring_cmd *c)
{
	struct io_uring ring;
	struct t_cqe cqe;
	int ret;

	ret = t_nvme_ring(&ring, 4, 0);
	if (ret)
		return ret;
	ret = t_nvme_cmd(&ring, fd, cmd_op, c, 0, &cqe) ? -ETIME : cqe.res;
	io_uring_queue_exit(&ring);
	return ret;
}

static int query_one(int fd, bool use_ring)
{
	struct io_uring ring;
	int val, ret, res;

	if (!use_ring)
		return ioctl(fd, BLKBSZGET, &val) ? -errno : val;
	ret = t_ring_init(&ring, 4, 0);
	if (ret)
		return ret;
	ret = t_block_query(&ring, fd, BLKBSZGET, 0, 0, 0, &res);
	io_uring_queue_exit(&ring);
	return ret ? -ETIME : res;
}

enum what { W_ADMIN, W_READ, W_WRITE, W_QUERY, W_FORMAT, W_NS_MGMT, W_FW_COMMIT, NR_WHAT };
static const char *const what_name[] = {
	"identify", "read", "write", "BLKBSZGET", "format", "ns-mgmt", "fw-commit",
};

static bool is_admin(enum what w)
{
	return w == W_ADMIN || w >= W_FORMAT;
}

static void build(enum what w, struct nvme_uring_cmd *c)
{
	switch (w) {
	case W_READ:
		uringcmd_nvme_rw(c, nvme_cmd_read, n.nsid, buf, n.lbs, lba, 1);
		break;
	case W_WRITE:	/* writes back what W_READ's setup read */
		uringcmd_nvme_rw(c, nvme_cmd_write, n.nsid, buf, n.lbs, lba, 1);
		break;
	case W_FORMAT:	/* LBA format 15 does not exist: harmless if it got through */
		uringcmd_nvme_cmd(c, nvme_admin_format_nvm, n.nsid, NULL, 0, 15, 0);
		break;
	case W_NS_MGMT:	/* delete, of a namespace id that does not exist */
		uringcmd_nvme_cmd(c, nvme_admin_ns_mgmt, 0xfffffffe, NULL, 0, 1, 0);
		break;
	case W_FW_COMMIT: /* activate the slot 7 image (none) at the next reset */
		uringcmd_nvme_cmd(c, nvme_admin_fw_commit, 0, NULL, 0, 7 | 2 << 3, 0);
		break;
	default:
		uringcmd_nvme_identify(c, 0, NVME_IDENTIFY_CNS_CTRL, buf);
		break;
	}
}

/* In a child: the caller runs command @w on @fd both ways. */
static struct cell run_cell(enum caller who, enum node node, int fd, enum what w)
{
	struct cell cell = { 0, 0 };
	int pipefd[2], status;
	pid_t pid;

	if (pipe(pipefd))
		t_die("pipe: %m");
	pid = fork();
	if (pid < 0)
		t_die("fork: %m");
	if (!pid) {
		struct nvme_uring_cmd c;

		close(pipefd[0]);
		become(who);
		if (w == W_QUERY) {
			cell.uring = query_one(fd, true);
			cell.ioctl = query_one(fd, false);
		} else {
			build(w, &c);
			cell.uring = uring_one(fd, is_admin(w) ? NVME_URING_CMD_ADMIN :
					       NVME_URING_CMD_IO, &c);
			cell.ioctl = t_nvme_ioctl(fd, is_admin(w) ? NVME_IOCTL_ADMIN_CMD :
						  NVME_IOCTL_IO_CMD, &c, NULL);
		}
		if (write(pipefd[1], &cell, sizeof(cell)) != sizeof(cell))
			_exit(2);
		_exit(0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &cell, sizeof(cell)) != sizeof(cell))
		t_error("%s, %s on %s: the child died", caller_name[who], what_name[w],
			node_path[node]);
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	return cell;
}

/*
 * What the ioctl must give, whatever the kernel (INT_MIN: it depends on the
 * kernel's rule, 0 or -EACCES, and the ioctl's answer is the expectation).
 */
static int fixed_ioctl(enum caller who, int mode, enum what w)
{
	if (w == W_QUERY)
		return bsz;
	if (who == ROOT)
		return 0;
	if (w >= W_FORMAT)
		return -EACCES;		/* never without CAP_SYS_ADMIN */
	if (w == W_WRITE && mode == O_RDONLY)
		return -EACCES;		/* nor a write on a read-only open */
	return INT_MIN;
}

/* What uring_cmd must give: the ioctl's answer on the same file. */
static int want_uring(enum node node, enum what w, int ioctl_res)
{
	if (node == CHR && is_admin(w))
		return -ENOTTY;		/* nvme_ns_chr_uring_cmd(): IO only */
	return ioctl_res;
}

/* An answer for the table: a block query's value, or a result. */
static const char *cell_str(enum what w, int res)
{
	static char bufs[2][32];
	static unsigned int next;
	char *b = bufs[next++ % 2];

	if (w == W_QUERY && res > 0)
		snprintf(b, sizeof(bufs[0]), "%d", res);
	else if (res > 0)
		snprintf(b, sizeof(bufs[0]), "NVMe %#x", res);
	else
		snprintf(b, sizeof(bufs[0]), "%s", t_res_str(res));
	return b;
}

int main(int argc, char **argv)
{
	static const int modes[] = { O_RDONLY, O_RDWR };
	static struct cell nocap[NR_WHAT];	/* root -CAP_SYS_ADMIN's, per file */
	enum caller who;
	unsigned int m, node;
	enum what w;
	int cells = 0, decided = 0, allowed = 0;

	t_nvme_open(&n, argc, argv);
	node_path[BDEV] = n.bdev;
	node_path[CHR] = n.chr;
	node_path[CTRL] = n.ctrl;
	buf = t_alloc(4096);
	lba = (2 << 20) / n.lbs;	/* 2 MiB in: no other test uses it */
	{
		struct nvme_uring_cmd c;

		/* the block written back in W_WRITE is what is there now */
		uringcmd_nvme_rw(&c, nvme_cmd_read, n.nsid, buf, n.lbs, lba, 1);
		if (t_nvme_ioctl(n.bfd, NVME_IOCTL_IO_CMD, &c, NULL))
			t_die("reading block %u failed", lba);
		if (ioctl(n.bfd, BLKBSZGET, &bsz))
			t_die("BLKBSZGET: %m");
	}

	for (node = 0; node < NR_NODES; node++) {
		for (m = 0; m < 2; m++) {
			int fd = open(node_path[node], modes[m]);

			if (fd < 0) {
				t_error("open %s: %m", node_path[node]);
				continue;
			}
			for (who = 0; who < NR_CALLERS; who++) {
				for (w = 0; w < NR_WHAT; w++) {
					const char *mode = m ? "read-write" : "read-only";
					struct cell cell;
					int want, want_u;
					char u[32], i[32];

					if (w == W_QUERY && node != BDEV)
						continue;
					if (node == CTRL && !is_admin(w))
						continue;	/* IO on /dev/nvmeX is ioctl-only */
					if (w >= W_FORMAT && who == ROOT)
						continue;	/* never for real */
					cell = run_cell(who, node, fd, w);
					cells++;
					snprintf(u, sizeof(u), "%s", cell_str(w, cell.uring));
					snprintf(i, sizeof(i), "%s", cell_str(w, cell.ioctl));
					t_info("%-12s %-3s %-20s %-9s uring %-14s ioctl %s",
					       node_path[node], m ? "rw" : "ro",
					       caller_name[who], what_name[w], u, i);

					/* the ioctl: the kernel's rule, within what every kernel gives */
					want = fixed_ioctl(who, modes[m], w);
					if (want != INT_MIN && cell.ioctl != want)
						t_error("%s %s, %s, %s: ioctl %s, expected %s",
							node_path[node], mode, caller_name[who],
							what_name[w], i, cell_str(w, want));
					if (want == INT_MIN && cell.ioctl != 0 &&
					    cell.ioctl != -EACCES)
						t_error("%s %s, %s, %s: ioctl %s, expected 0 or -EACCES (the kernel's rule for callers without CAP_SYS_ADMIN)",
							node_path[node], mode, caller_name[who],
							what_name[w], i);
					if (want == INT_MIN && who == ROOT_NOCAP) {
						decided++;
						allowed += !cell.ioctl;
					}

					/* uring_cmd: what the ioctl gave on the same file */
					want_u = want_uring(node, w, cell.ioctl);
					if (cell.uring != want_u)
						t_error("%s %s, %s, %s: uring_cmd %s, the ioctl %s; expected %s",
							node_path[node], mode, caller_name[who],
							what_name[w], u, i, cell_str(w, want_u));

					/* the capability decides, not the uid */
					if (who == ROOT_NOCAP)
						nocap[w] = cell;
					if (who == NOBODY &&
					    (cell.uring != nocap[w].uring ||
					     cell.ioctl != nocap[w].ioctl))
						t_error("%s %s, %s: nobody gets uring_cmd %s, ioctl %s; root without CAP_SYS_ADMIN uring_cmd %s, ioctl %s",
							node_path[node], mode, what_name[w], u, i,
							cell_str(w, nocap[w].uring),
							cell_str(w, nocap[w].ioctl));
				}
			}
			close(fd);
		}
	}
	t_info("%d cells; the kernel's rule let root without CAP_SYS_ADMIN run %d of the %d commands it decides",
	       cells, allowed, decided);
	free(buf);
	t_nvme_close(&n);
	return t_result();
}
