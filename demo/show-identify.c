/*
 * Description: Identify Controller, Identify Namespace and the SMART log read
 * asynchronously through io_uring on the NVMe block node (NVME_URING_CMD_ADMIN
 * on /dev/nvmeXnY), all three in flight at once, printed next to what the
 * synchronous NVME_IOCTL_ADMIN_CMD on the same node returns.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <liburing.h>
#include <linux/nvme_ioctl.h>
#include <nvme/types.h>
#include <nvme/util.h>

static void *buf(void)
{
	void *p;

	if (posix_memalign(&p, 4096, 4096))
		exit(1);
	memset(p, 0, 4096);
	return p;
}

static void cmd(struct nvme_uring_cmd *c, __u8 opcode, __u32 nsid, void *b,
		__u32 len, __u32 cdw10)
{
	memset(c, 0, sizeof(*c));
	c->opcode = opcode;
	c->nsid = nsid;
	c->addr = (__u64)(uintptr_t)b;
	c->data_len = len;
	c->cdw10 = cdw10;
}

static int sync_admin(int fd, const struct nvme_uring_cmd *c, void *b)
{
	struct nvme_admin_cmd a = {
		.opcode = c->opcode, .nsid = c->nsid, .cdw10 = c->cdw10,
		.addr = (__u64)(uintptr_t)b, .data_len = c->data_len,
	};

	return ioctl(fd, NVME_IOCTL_ADMIN_CMD, &a);
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/nvme0n1";
	const char *what[3] = { "identify controller", "identify namespace",
				"SMART / health log" };
	struct nvme_uring_cmd c[3];
	void *ub[3], *ib[3];
	struct io_uring ring;
	struct nvme_id_ctrl *id;
	struct nvme_id_ns *ns;
	struct nvme_smart_log *smart;
	int fd, nsid, ret, i;

	fd = open(dev, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "open %s: %s\n", dev, strerror(errno));
		return 1;
	}
	nsid = ioctl(fd, NVME_IOCTL_ID);
	if (nsid <= 0) {
		fprintf(stderr, "%s: not an NVMe namespace\n", dev);
		return 1;
	}
	ret = io_uring_queue_init(4, &ring, IORING_SETUP_SQE128 | IORING_SETUP_CQE32);
	if (ret) {
		fprintf(stderr, "io_uring_queue_init: %s\n", strerror(-ret));
		return 1;
	}
	for (i = 0; i < 3; i++) {
		ub[i] = buf();
		ib[i] = buf();
	}
	cmd(&c[0], nvme_admin_identify, 0, ub[0], 4096, NVME_IDENTIFY_CNS_CTRL);
	cmd(&c[1], nvme_admin_identify, nsid, ub[1], 4096, NVME_IDENTIFY_CNS_NS);
	cmd(&c[2], nvme_admin_get_log_page, NVME_NSID_ALL, ub[2], 512,
	    NVME_LOG_LID_SMART | (512 / 4 - 1) << 16);
	for (i = 0; i < 3; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
		sqe->cmd_op = NVME_URING_CMD_ADMIN;
		memcpy(sqe->cmd, &c[i], sizeof(c[i]));
		sqe->user_data = i;
	}
	printf("%s: 3 admin commands submitted in one io_uring_enter(): %d\n",
	       dev, io_uring_submit(&ring));
	for (i = 0; i < 3; i++) {
		struct io_uring_cqe *cqe;
		int same, st;

		if (io_uring_wait_cqe(&ring, &cqe)) {
			fprintf(stderr, "no completion\n");
			return 1;
		}
		st = sync_admin(fd, &c[cqe->user_data], ib[cqe->user_data]);
		same = !memcmp(ub[cqe->user_data], ib[cqe->user_data],
			       cqe->user_data == 2 ? 32 : 4096);
		printf("  %-20s cqe->res %d (%s), same bytes as NVME_IOCTL_ADMIN_CMD (status %d): %s\n",
		       what[cqe->user_data], cqe->res,
		       cqe->res >= 0 ? nvme_status_to_string(cqe->res, false) :
		       strerror(-cqe->res), st, same ? "yes" : "NO");
		io_uring_cqe_seen(&ring, cqe);
	}
	id = ub[0];
	ns = ub[1];
	smart = ub[2];
	printf("  controller: vid %#06x, model \"%.40s\", serial \"%.20s\", firmware \"%.8s\"\n",
	       id->vid, id->mn, id->sn, id->fr);
	printf("  namespace %d: %llu blocks, LBA format %u of %u\n", nsid,
	       (unsigned long long)ns->nsze, ns->flbas & 0xf, ns->nlbaf + 1);
	printf("  health: critical warning %#x, temperature %d C, spare %u%%\n",
	       smart->critical_warning,
	       (smart->temperature[0] | smart->temperature[1] << 8) - 273,
	       smart->avail_spare);
	io_uring_queue_exit(&ring);
	return 0;
}
