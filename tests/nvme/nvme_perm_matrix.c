// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the permission matrix of NVMe passthrough: for each caller
 * (root; root without CAP_SYS_ADMIN; user nobody without capabilities),
 * each node (block node, /dev/ngXnY, controller) and each open mode
 * (read-only, read-write; opened by root, then the caller takes over the
 * file), uring_cmd gives exactly what the 6.1 passthrough ioctl gives the
 * same caller on the same file: Identify (admin), a Read and a Write (I/O),
 * and a block query. The results must also be the table below, which is
 * drivers-nvme/README.md's:
 *
 *                         root       root -CAP_SYS_ADMIN   nobody
 *   admin (any node)      0          -EACCES               -EACCES
 *   read/write (ns nodes) 0 (also on a read-only open)  -EACCES  -EACCES
 *   block query (bdev)    answer     answer                answer
 *
 * except that 6.1's /dev/ngXnY has no admin uring_cmd (-ENOTTY for every
 * caller, where its ioctl runs the command): upstream's, kept as it is.
 *
 * 6.1 asks for CAP_SYS_ADMIN for every passthrough command and looks at
 * nothing else (no open-mode check), so commands with side effects (Format
 * NVM, Namespace Management, Firmware Commit) stay root-only: tried here
 * without CAP_SYS_ADMIN only, and refused on every path.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
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

/* What 6.1's ioctls give, and so what uring_cmd must give. */
static int expected(enum caller who, enum node node, enum what w, bool uring)
{
	if (uring && node == CHR && is_admin(w))
		return -ENOTTY;		/* nvme_ns_chr_uring_cmd(): IO only */
	if (w == W_QUERY)
		return bsz;
	if (who != ROOT)
		return -EACCES;
	return 0;
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
	enum caller who;
	unsigned int m, node;
	enum what w;
	int cells = 0;

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
					struct cell cell;
					int want, want_uring;
					char u[32], i[32];

					if (w == W_QUERY && node != BDEV)
						continue;
					if (node == CTRL && !is_admin(w))
						continue;	/* 6.1: IO on /dev/nvmeX is ioctl-only */
					if (w >= W_FORMAT && who == ROOT)
						continue;	/* never for real */
					cell = run_cell(who, node, fd, w);
					want = expected(who, node, w, false);
					want_uring = expected(who, node, w, true);
					cells++;
					snprintf(u, sizeof(u), "%s", cell_str(w, cell.uring));
					snprintf(i, sizeof(i), "%s", cell_str(w, cell.ioctl));
					t_info("%-12s %-3s %-20s %-9s uring %-14s ioctl %s",
					       node_path[node], m ? "rw" : "ro",
					       caller_name[who], what_name[w], u, i);
					if (cell.uring != want_uring || cell.ioctl != want)
						t_error("%s %s, %s, %s: uring_cmd %s, ioctl %s; "
							"expected %s and %s",
							node_path[node], m ? "read-write" : "read-only",
							caller_name[who], what_name[w], u, i,
							cell_str(w, want_uring), cell_str(w, want));
				}
			}
			close(fd);
		}
	}
	t_info("%d cells", cells);
	free(buf);
	t_nvme_close(&n);
	return t_result();
}
