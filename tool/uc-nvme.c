// SPDX-License-Identifier: GPL-2.0
/*
 * uc-nvme: nvme-cli's everyday verbs, sent through io_uring.
 *
 *	uc-nvme id-ctrl /dev/nvme0n1 -o json
 *
 * Every command goes to the kernel as IORING_OP_URING_CMD
 * (NVME_URING_CMD_ADMIN or NVME_URING_CMD_IO) on the node named, built with
 * lib/uringcmd-nvme.h: the namespace block node /dev/nvmeXnY on a kernel
 * with the uringcmd series, the generic node /dev/ngXnY or the controller
 * /dev/nvmeX on any Linux from 5.19 (6.0 for the block node's neighbours'
 * features). Options, defaults and output follow Debian 12's nvme-cli
 * (2.3), so that a script can swap the program name: -o binary prints the
 * raw structure, -o json the keys nvme-cli prints, hex dumps and the
 * passthrough lines are nvme-cli's. nvme-cli itself cannot do this: its
 * libnvme sends only Get Log Page through io_uring, and only on char
 * devices.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uringcmd-nvme.h>

#define PROG "uc-nvme"

enum fmt { FMT_NORMAL, FMT_JSON, FMT_BINARY };

/* ---- output: one emitter for JSON (as json-c prints it for nvme-cli) and
 * the normal "name : value" lines ------------------------------------ */

static enum fmt out_fmt;
static int out_depth;
static bool out_first[16];
static int out_width = 10;	/* normal: the widest key of the structure */

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

static void json_sep(const char *key)
{
	if (!out_first[out_depth])
		putchar(',');
	out_first[out_depth] = false;
	printf("\n%*s", 2 * out_depth, "");
	if (key) {
		json_str(key);
		putchar(':');
	}
}

/* the value @v, already formatted, under @key */
static void emit(const char *key, const char *v, bool string)
{
	if (out_fmt == FMT_JSON) {
		json_sep(key);
		if (string)
			json_str(v);
		else
			fputs(v, stdout);
	} else {
		printf("%*s%-*s : %s\n", out_depth > 1 ? 2 : 0, "",
		       out_width, key ? key : "", v);
	}
}

static void emit_int(const char *key, int64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	emit(key, buf, false);
}

/* nvme-cli's json_object_add_value_int()/_uint(): json-c's 32-bit int */
static void emit_i32(const char *key, uint32_t v)
{
	emit_int(key, (int32_t)v);
}

static void emit_u64(const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	emit(key, buf, false);
}

/* a 128-bit little-endian counter, as a decimal string (nvme-cli's) */
static void emit_u128(const char *key, const __u8 le[16])
{
	unsigned __int128 v = 0;
	char buf[48], *p = buf + sizeof(buf) - 1;
	int i;

	for (i = 15; i >= 0; i--)
		v = v << 8 | le[i];
	*p = '\0';
	do {
		*--p = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	emit(key, p, true);
}

static void emit_str(const char *key, const char *s)
{
	emit(key, s, true);
}

/* a fixed-size, space-padded ASCII field, as nvme-cli's "%-.*s" */
static void emit_ascii(const char *key, const char *field, size_t len)
{
	char buf[257];

	snprintf(buf, sizeof(buf), "%-.*s", (int)len, field);
	emit_str(key, buf);
}

static void open_obj(const char *key)
{
	if (out_fmt == FMT_JSON) {
		if (out_depth)
			json_sep(key);
		putchar('{');
	}
	out_first[++out_depth] = true;
}

static void close_obj(void)
{
	bool empty = out_first[out_depth--];

	if (out_fmt == FMT_JSON) {
		if (!empty)
			printf("\n%*s", 2 * out_depth, "");
		putchar('}');
		if (!out_depth)
			putchar('\n');
	}
}

static void open_array(const char *key)
{
	if (out_fmt == FMT_JSON) {
		json_sep(key);
		putchar('[');
	}
	out_first[++out_depth] = true;
}

static void close_array(void)
{
	bool empty = out_first[out_depth--];

	if (out_fmt == FMT_JSON) {
		if (!empty)
			printf("\n%*s", 2 * out_depth, "");
		putchar(']');
	}
}

/* normal output: an array element's heading */
static void element(const char *array, int i)
{
	if (out_fmt == FMT_NORMAL)
		printf("%s %d:\n", array, i);
}

/* nvme-cli's d(): 16 bytes a line, offset, hex and ASCII */
static void hexdump(const unsigned char *buf, size_t len)
{
	char ascii[17];
	size_t i;
	int line_done = 0;

	printf("     ");
	for (i = 0; i <= 15; i++)
		printf("%3zx", i);
	for (i = 0; i < len; i++) {
		line_done = 0;
		if (i % 16 == 0)
			printf("\n%04zx:", i);
		printf(" %02x", buf[i]);
		ascii[i % 16] = (buf[i] >= '!' && buf[i] <= '~') ? (char)buf[i] : '.';
		if ((i + 1) % 16 == 0) {
			ascii[16] = '\0';
			printf(" \"%.*s\"", 16, ascii);
			line_done = 1;
		}
	}
	if (!line_done) {
		unsigned int b = 16 - (unsigned int)(i % 16);

		ascii[i % 16 + 1] = '\0';
		printf(" %*s \"%.*s\"", (int)(2 * b + b), "", 16, ascii);
	}
	printf("\n");
}

static int raw_out(const void *buf, size_t len)
{
	if (fwrite(buf, 1, len, stdout) != len || fflush(stdout)) {
		perror(PROG ": stdout");
		return -EIO;
	}
	return 0;
}

/* ---- the command ---------------------------------------------------- */

static const char *dev_path;
static int dev_fd = -1;
static bool admin_cmd;	/* the last command was NVME_URING_CMD_ADMIN */

/*
 * One command through a ring of its own, waited for. Returns 0, the NVMe
 * status (> 0) or -errno; *result the completion's dword 0.
 */
static int submit(__u32 cmd_op, const struct nvme_uring_cmd *c, __u32 *result)
{
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int ret;

	ret = uringcmd_nvme_queue_init(2, &ring, 0);
	if (ret) {
		fprintf(stderr, PROG ": io_uring_queue_init(SQE128|CQE32): %s%s\n",
			strerror(-ret), ret == -EINVAL ?
			" (Linux 6.0 or later has 128-byte SQEs and 32-byte CQEs)" : "");
		return ret;
	}
	sqe = io_uring_get_sqe(&ring);
	uringcmd_prep_nvme(sqe, dev_fd, cmd_op, c);
	admin_cmd = cmd_op == NVME_URING_CMD_ADMIN;
	ret = io_uring_submit_and_wait(&ring, 1);
	if (ret >= 0)
		ret = io_uring_wait_cqe(&ring, &cqe);
	if (ret >= 0) {
		ret = cqe->res;
		if (result)
			*result = (__u32)uringcmd_nvme_cqe_result(cqe);
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
	return ret;
}

/* what went wrong, in nvme-cli's words plus what the kernel lacks */
static void report(const char *what, int ret)
{
	struct uringcmd_probe probe;
	char buf[160];
	struct stat st;

	if (ret > 0) {
		fprintf(stderr, "NVMe status: %s\n",
			uringcmd_nvme_res_str(ret, buf, sizeof(buf)) +
			strlen("NVMe status "));
		return;
	}
	fprintf(stderr, "%s: %s\n", what, strerror(-ret));
	/* the library's probe says whether the block node takes them at all */
	if ((ret == -EOPNOTSUPP || ret == -EINVAL || ret == -ENOTTY) &&
	    !fstat(dev_fd, &st) && S_ISBLK(st.st_mode) &&
	    !uringcmd_nvme_probe(dev_fd, 0, &probe) && probe.nvme_admin < 0)
		fprintf(stderr, PROG ": %s: this kernel takes no NVMe commands "
			"through io_uring on a block device: it lacks the uringcmd "
			"series (the namespace's /dev/ngXnY takes them on any "
			"Linux from 5.19)\n", dev_path);
	/* Linux's generic namespace node takes I/O commands only */
	if (ret == -ENOTTY && admin_cmd && !fstat(dev_fd, &st) &&
	    S_ISCHR(st.st_mode))
		fprintf(stderr, PROG ": %s: Linux takes admin commands through "
			"io_uring on the controller (/dev/nvmeX) and, with the "
			"uringcmd series, on the namespace block node, not on "
			"/dev/ngXnY\n", dev_path);
}

static void *alloc_buf(size_t len)
{
	void *p = NULL;

	if (!len)
		return NULL;
	if (posix_memalign(&p, 4096, len)) {
		fprintf(stderr, PROG ": out of memory for %zu bytes\n", len);
		exit(1);
	}
	memset(p, 0, len);
	return p;
}

static __u32 default_nsid(void)
{
	int ret = ioctl(dev_fd, NVME_IOCTL_ID);

	return ret > 0 ? (__u32)ret : NVME_NSID_ALL;
}

/* ---- options -------------------------------------------------------- */

static unsigned long long num(const char *opt, const char *s,
			      unsigned long long max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || v > max) {
		fprintf(stderr, PROG ": --%s: '%s' is not a number up to %llu\n",
			opt, s, max);
		exit(2);
	}
	return v;
}

static enum fmt parse_fmt(const char *s)
{
	if (!strcmp(s, "normal"))
		return FMT_NORMAL;
	if (!strcmp(s, "json"))
		return FMT_JSON;
	if (!strcmp(s, "binary"))
		return FMT_BINARY;
	fprintf(stderr, PROG ": --output-format: '%s': normal, json or binary\n", s);
	exit(2);
}

/* ---- id-ctrl, id-ns, smart-log ---------------------------------------- */

static void show_id_ctrl(const struct nvme_id_ctrl *c)
{
	char uuid[NVME_UUID_LEN_STRING];
	int i;

	out_width = 17;
	open_obj(NULL);
	emit_i32("vid", le16toh(c->vid));
	emit_i32("ssvid", le16toh(c->ssvid));
	emit_ascii("sn", c->sn, sizeof(c->sn));
	emit_ascii("mn", c->mn, sizeof(c->mn));
	emit_ascii("fr", c->fr, sizeof(c->fr));
	emit_i32("rab", c->rab);
	emit_i32("ieee", (__u32)c->ieee[2] << 16 | c->ieee[1] << 8 | c->ieee[0]);
	emit_i32("cmic", c->cmic);
	emit_i32("mdts", c->mdts);
	emit_i32("cntlid", le16toh(c->cntlid));
	emit_i32("ver", le32toh(c->ver));
	emit_i32("rtd3r", le32toh(c->rtd3r));
	emit_i32("rtd3e", le32toh(c->rtd3e));
	emit_i32("oaes", le32toh(c->oaes));
	emit_i32("ctratt", le32toh(c->ctratt));
	emit_i32("rrls", le16toh(c->rrls));
	emit_i32("cntrltype", c->cntrltype);
	nvme_uuid_to_string((unsigned char *)c->fguid, uuid);
	emit_str("fguid", uuid);
	emit_i32("crdt1", le16toh(c->crdt1));
	emit_i32("crdt2", le16toh(c->crdt2));
	emit_i32("crdt3", le16toh(c->crdt3));
	emit_i32("nvmsr", c->nvmsr);
	emit_i32("vwci", c->vwci);
	emit_i32("mec", c->mec);
	emit_i32("oacs", le16toh(c->oacs));
	emit_i32("acl", c->acl);
	emit_i32("aerl", c->aerl);
	emit_i32("frmw", c->frmw);
	emit_i32("lpa", c->lpa);
	emit_i32("elpe", c->elpe);
	emit_i32("npss", c->npss);
	emit_i32("avscc", c->avscc);
	emit_i32("apsta", c->apsta);
	emit_i32("wctemp", le16toh(c->wctemp));
	emit_i32("cctemp", le16toh(c->cctemp));
	emit_i32("mtfa", le16toh(c->mtfa));
	emit_i32("hmpre", le32toh(c->hmpre));
	emit_i32("hmmin", le32toh(c->hmmin));
	emit_u128("tnvmcap", c->tnvmcap);
	emit_u128("unvmcap", c->unvmcap);
	emit_i32("rpmbs", le32toh(c->rpmbs));
	emit_i32("edstt", le16toh(c->edstt));
	emit_i32("dsto", c->dsto);
	emit_i32("fwug", c->fwug);
	emit_i32("kas", le16toh(c->kas));
	emit_i32("hctma", le16toh(c->hctma));
	emit_i32("mntmt", le16toh(c->mntmt));
	emit_i32("mxtmt", le16toh(c->mxtmt));
	emit_i32("sanicap", le32toh(c->sanicap));
	emit_i32("hmminds", le32toh(c->hmminds));
	emit_i32("hmmaxd", le16toh(c->hmmaxd));
	emit_i32("nsetidmax", le16toh(c->nsetidmax));
	emit_i32("endgidmax", le16toh(c->endgidmax));
	emit_i32("anatt", c->anatt);
	emit_i32("anacap", c->anacap);
	emit_i32("anagrpmax", le32toh(c->anagrpmax));
	emit_i32("nanagrpid", le32toh(c->nanagrpid));
	emit_i32("pels", le32toh(c->pels));
	emit_i32("domainid", le16toh(c->domainid));
	emit_u128("megcap", c->megcap);
	emit_i32("sqes", c->sqes);
	emit_i32("cqes", c->cqes);
	emit_i32("maxcmd", le16toh(c->maxcmd));
	emit_i32("nn", le32toh(c->nn));
	emit_i32("oncs", le16toh(c->oncs));
	emit_i32("fuses", le16toh(c->fuses));
	emit_i32("fna", c->fna);
	emit_i32("vwc", c->vwc);
	emit_i32("awun", le16toh(c->awun));
	emit_i32("awupf", le16toh(c->awupf));
	emit_i32("icsvscc", c->icsvscc);
	emit_i32("nwpc", c->nwpc);
	emit_i32("acwu", le16toh(c->acwu));
	emit_i32("ocfs", le16toh(c->ocfs));
	emit_i32("sgls", le32toh(c->sgls));
	emit_i32("mnan", le32toh(c->mnan));
	emit_u128("maxdna", c->maxdna);
	emit_i32("maxcna", le32toh(c->maxcna));
	if (strnlen(c->subnqn, sizeof(c->subnqn)))
		emit_ascii("subnqn", c->subnqn, sizeof(c->subnqn));
	emit_i32("ioccsz", le32toh(c->ioccsz));
	emit_i32("iorcsz", le32toh(c->iorcsz));
	emit_i32("icdoff", le16toh(c->icdoff));
	emit_i32("fcatt", c->fcatt);
	emit_i32("msdbd", c->msdbd);
	emit_i32("ofcs", le16toh(c->ofcs));
	open_array("psds");
	for (i = 0; i <= c->npss && i < 32; i++) {
		const struct nvme_id_psd *p = &c->psd[i];

		element("ps", i);
		open_obj(NULL);
		emit_i32("max_power", le16toh(p->mp));
		emit_i32("flags", p->flags);
		emit_i32("entry_lat", le32toh(p->enlat));
		emit_i32("exit_lat", le32toh(p->exlat));
		emit_i32("read_tput", p->rrt);
		emit_i32("read_lat", p->rrl);
		emit_i32("write_tput", p->rwt);
		emit_i32("write_lat", p->rwl);
		emit_i32("idle_power", le16toh(p->idlp));
		emit_i32("idle_scale", nvme_psd_power_scale(p->ips));
		emit_i32("active_power", le16toh(p->actp));
		emit_i32("active_power_work", p->apws & 0x7);
		emit_i32("active_scale", nvme_psd_power_scale(p->apws));
		close_obj();
	}
	close_array();
	close_obj();
}

static void show_id_ns(const struct nvme_id_ns *ns)
{
	char hex[2 * 16 + 1];
	int i;

	out_width = 8;
	open_obj(NULL);
	emit_u64("nsze", le64toh(ns->nsze));
	emit_u64("ncap", le64toh(ns->ncap));
	emit_u64("nuse", le64toh(ns->nuse));
	emit_i32("nsfeat", ns->nsfeat);
	emit_i32("nlbaf", ns->nlbaf);
	emit_i32("flbas", ns->flbas);
	emit_i32("mc", ns->mc);
	emit_i32("dpc", ns->dpc);
	emit_i32("dps", ns->dps);
	emit_i32("nmic", ns->nmic);
	emit_i32("rescap", ns->rescap);
	emit_i32("fpi", ns->fpi);
	emit_i32("dlfeat", ns->dlfeat);
	emit_i32("nawun", le16toh(ns->nawun));
	emit_i32("nawupf", le16toh(ns->nawupf));
	emit_i32("nacwu", le16toh(ns->nacwu));
	emit_i32("nabsn", le16toh(ns->nabsn));
	emit_i32("nabo", le16toh(ns->nabo));
	emit_i32("nabspf", le16toh(ns->nabspf));
	emit_i32("noiob", le16toh(ns->noiob));
	emit_u128("nvmcap", ns->nvmcap);
	emit_i32("nsattr", ns->nsattr);
	emit_i32("nvmsetid", le16toh(ns->nvmsetid));
	if (ns->nsfeat & 0x10) {
		emit_i32("npwg", le16toh(ns->npwg));
		emit_i32("npwa", le16toh(ns->npwa));
		emit_i32("npdg", le16toh(ns->npdg));
		emit_i32("npda", le16toh(ns->npda));
		emit_i32("nows", le16toh(ns->nows));
	}
	emit_i32("mssrl", le16toh(ns->mssrl));
	emit_i32("mcl", le32toh(ns->mcl));
	emit_i32("msrc", ns->msrc);
	emit_i32("nulbaf", ns->nulbaf);
	emit_i32("anagrpid", le32toh(ns->anagrpid));
	emit_i32("endgid", le16toh(ns->endgid));
	for (i = 0; i < 8; i++)
		sprintf(hex + 2 * i, "%02x", ns->eui64[i]);
	emit_str("eui64", hex);
	for (i = 0; i < 16; i++)
		sprintf(hex + 2 * i, "%02x", ns->nguid[i]);
	emit_str("nguid", hex);
	open_array("lbafs");
	for (i = 0; i <= ns->nlbaf && i < 64; i++) {
		element("lbaf", i);
		open_obj(NULL);
		emit_i32("ms", le16toh(ns->lbaf[i].ms));
		emit_i32("ds", ns->lbaf[i].ds);
		emit_i32("rp", ns->lbaf[i].rp);
		close_obj();
	}
	close_array();
	close_obj();
}

static void show_smart_log(const struct nvme_smart_log *s)
{
	char key[32];
	int i;

	out_width = 38;
	open_obj(NULL);
	emit_i32("critical_warning", s->critical_warning);
	emit_i32("temperature", (__u32)s->temperature[1] << 8 | s->temperature[0]);
	emit_i32("avail_spare", s->avail_spare);
	emit_i32("spare_thresh", s->spare_thresh);
	emit_i32("percent_used", s->percent_used);
	emit_i32("endurance_grp_critical_warning_summary",
		 s->endu_grp_crit_warn_sumry);
	emit_u128("data_units_read", s->data_units_read);
	emit_u128("data_units_written", s->data_units_written);
	emit_u128("host_read_commands", s->host_reads);
	emit_u128("host_write_commands", s->host_writes);
	emit_u128("controller_busy_time", s->ctrl_busy_time);
	emit_u128("power_cycles", s->power_cycles);
	emit_u128("power_on_hours", s->power_on_hours);
	emit_u128("unsafe_shutdowns", s->unsafe_shutdowns);
	emit_u128("media_errors", s->media_errors);
	emit_u128("num_err_log_entries", s->num_err_log_entries);
	emit_i32("warning_temp_time", le32toh(s->warning_temp_time));
	emit_i32("critical_comp_time", le32toh(s->critical_comp_time));
	for (i = 0; i < 8; i++) {
		__u16 t = le16toh(s->temp_sensor[i]);

		if (!t)
			continue;
		snprintf(key, sizeof(key), "temperature_sensor_%d", i + 1);
		emit_i32(key, t);
	}
	emit_i32("thm_temp1_trans_count", le32toh(s->thm_temp1_trans_count));
	emit_i32("thm_temp2_trans_count", le32toh(s->thm_temp2_trans_count));
	emit_i32("thm_temp1_total_time", le32toh(s->thm_temp1_total_time));
	emit_i32("thm_temp2_total_time", le32toh(s->thm_temp2_total_time));
	close_obj();
}

/* ---- the verbs -------------------------------------------------------- */

struct cfg {
	enum fmt fmt;
	bool raw;		/* -b */
	__u32 nsid;
	bool nsid_given;
	/* get-log */
	__u8 lid;
	__u32 len;
	__u64 lpo;
	__u8 lsp;
	__u16 lsi;
	bool rae;
	__u8 csi;
	/* get-feature */
	__u8 fid;
	__u8 sel;
	__u32 cdw11;
	bool data_len_given;
	/* passthru */
	struct nvme_uring_cmd cmd;
	__u32 md_len;
	bool read, write, show, dry;
	__u8 prefill;
	const char *input, *metadata;
};

static int do_identify(struct cfg *cfg, bool ns)
{
	struct nvme_uring_cmd c;
	void *buf = alloc_buf(NVME_IDENTIFY_DATA_SIZE);
	__u32 nsid = 0;
	int ret;

	if (ns)
		nsid = cfg->nsid_given ? cfg->nsid : default_nsid();
	uringcmd_nvme_identify(&c, nsid, ns ? NVME_IDENTIFY_CNS_NS :
			       NVME_IDENTIFY_CNS_CTRL, buf);
	ret = submit(NVME_URING_CMD_ADMIN, &c, NULL);
	if (ret) {
		report(ns ? "identify namespace" : "identify controller", ret);
	} else if (cfg->fmt == FMT_BINARY || cfg->raw) {
		ret = raw_out(buf, NVME_IDENTIFY_DATA_SIZE);
	} else {
		if (cfg->fmt == FMT_NORMAL)
			printf(ns ? "NVME Identify Namespace %u:\n" :
			       "NVME Identify Controller:\n", nsid);
		if (ns)
			show_id_ns(buf);
		else
			show_id_ctrl(buf);
	}
	free(buf);
	return ret;
}

static int do_smart_log(struct cfg *cfg)
{
	struct nvme_uring_cmd c;
	void *buf = alloc_buf(sizeof(struct nvme_smart_log));
	__u32 nsid = cfg->nsid_given ? cfg->nsid : NVME_NSID_ALL;
	int ret;

	uringcmd_nvme_get_log(&c, nsid, NVME_LOG_LID_SMART, buf,
			      sizeof(struct nvme_smart_log));
	ret = submit(NVME_URING_CMD_ADMIN, &c, NULL);
	if (ret) {
		report("smart log", ret);
	} else if (cfg->fmt == FMT_BINARY || cfg->raw) {
		ret = raw_out(buf, sizeof(struct nvme_smart_log));
	} else {
		if (cfg->fmt == FMT_NORMAL)
			printf("Smart Log for NVME device:%s namespace-id:%x\n",
			       strrchr(dev_path, '/') ? strrchr(dev_path, '/') + 1 :
			       dev_path, nsid);
		show_smart_log(buf);
	}
	free(buf);
	return ret;
}

static int do_get_log(struct cfg *cfg)
{
	struct nvme_uring_cmd c;
	void *buf;
	__u32 nsid = cfg->nsid_given ? cfg->nsid : NVME_NSID_ALL;
	int ret;

	if (!cfg->len || cfg->len % 4) {
		fprintf(stderr, PROG ": get-log: --log-len must be a non-zero multiple of 4\n");
		return -EINVAL;
	}
	buf = alloc_buf(cfg->len);
	uringcmd_nvme_get_log(&c, nsid, cfg->lid, buf, cfg->len);
	c.cdw10 |= (__u32)(cfg->lsp & 0x7f) << 8 | (cfg->rae ? 1u << 15 : 0);
	c.cdw11 |= (__u32)cfg->lsi << 16;
	c.cdw12 = (__u32)cfg->lpo;
	c.cdw13 = (__u32)(cfg->lpo >> 32);
	c.cdw14 = (__u32)cfg->csi << 24;
	ret = submit(NVME_URING_CMD_ADMIN, &c, NULL);
	if (ret) {
		report("log page", ret);
	} else if (cfg->raw || cfg->fmt == FMT_BINARY) {
		ret = raw_out(buf, cfg->len);
	} else {
		printf("Device:%s log-id:%d namespace-id:%#x\n",
		       strrchr(dev_path, '/') ? strrchr(dev_path, '/') + 1 : dev_path,
		       cfg->lid, nsid);
		hexdump(buf, cfg->len);
	}
	free(buf);
	return ret;
}

static const char *sel_name(__u8 sel)
{
	static const char *const names[] = {
		"Current", "Default", "Saved", "Supported capabilities",
	};

	return sel < 4 ? names[sel] : sel == 8 ? "Changed" : "Reserved";
}

static int do_get_feature(struct cfg *cfg)
{
	struct nvme_uring_cmd c;
	__u32 len = cfg->len, result = 0;
	void *buf;
	int ret;

	if (!cfg->nsid_given)
		cfg->nsid = default_nsid();
	/* libnvme knows each feature's data structure length */
	if (!cfg->data_len_given && nvme_get_feature_length(cfg->fid, cfg->cdw11, &len))
		len = 0;
	if (cfg->sel == 3)
		len = 0;
	buf = alloc_buf(len);
	uringcmd_nvme_get_features(&c, cfg->fid, cfg->sel, buf, len);
	c.nsid = cfg->nsid;
	c.cdw11 = cfg->cdw11;
	ret = submit(NVME_URING_CMD_ADMIN, &c, &result);
	if (ret) {
		report("get-feature", ret);
	} else if (cfg->raw && buf) {
		ret = raw_out(buf, len);
	} else {
		printf("get-feature:%#0*x, %s value:%#0*x\n",
		       cfg->fid ? 4 : 2, cfg->fid, sel_name(cfg->sel),
		       result ? 10 : 8, result);
		if (buf)
			hexdump(buf, len);
	}
	free(buf);
	return ret;
}

static int read_all(int fd, void *buf, size_t len, const char *what)
{
	ssize_t n;

	n = read(fd, buf, len);
	if (n < 0) {
		fprintf(stderr, PROG ": reading %s: %s\n", what, strerror(errno));
		return -errno;
	}
	return 0;
}

static int do_passthru(struct cfg *cfg, bool admin)
{
	struct nvme_uring_cmd *c = &cfg->cmd;
	int dfd = -1, mfd = -1, ret = 0;
	void *data, *md;
	__u32 result = 0;

	c->metadata_len = cfg->md_len;
	if (c->opcode & 1)
		cfg->write = true;
	if (c->opcode & 2)
		cfg->read = true;
	if (c->data_len && !cfg->read && !cfg->write) {
		fprintf(stderr, "data direction not given\n");
		return -EINVAL;
	}
	data = alloc_buf(c->data_len);
	md = alloc_buf(c->metadata_len);
	if (data)
		memset(data, cfg->prefill, c->data_len);
	if (md)
		memset(md, cfg->prefill, c->metadata_len);
	if (cfg->input) {
		dfd = open(cfg->input, cfg->write ? O_RDONLY :
			   O_WRONLY | O_CREAT | O_TRUNC, 0664);
		if (dfd < 0) {
			perror(cfg->input);
			ret = -EINVAL;
			goto out;
		}
	}
	if (cfg->metadata) {
		mfd = open(cfg->metadata, cfg->write ? O_RDONLY :
			   O_WRONLY | O_CREAT | O_TRUNC, 0664);
		if (mfd < 0) {
			perror(cfg->metadata);
			ret = -EINVAL;
			goto out;
		}
	}
	if (cfg->write) {
		if (data)
			ret = read_all(dfd >= 0 ? dfd : 0, data, c->data_len, "the data");
		if (!ret && md)
			ret = read_all(mfd >= 0 ? mfd : 0, md, c->metadata_len, "the metadata");
		if (ret)
			goto out;
	}
	c->addr = (__u64)(uintptr_t)data;
	c->metadata = (__u64)(uintptr_t)md;
	if (cfg->show || cfg->dry) {
		printf("opcode       : %02x\n", c->opcode);
		printf("flags        : %02x\n", c->flags);
		printf("rsvd1        : %04x\n", c->rsvd1);
		printf("nsid         : %08x\n", c->nsid);
		printf("cdw2         : %08x\n", c->cdw2);
		printf("cdw3         : %08x\n", c->cdw3);
		printf("data_len     : %08x\n", c->data_len);
		printf("metadata_len : %08x\n", c->metadata_len);
		printf("addr         : %" PRIx64 "\n", (uint64_t)c->addr);
		printf("metadata     : %" PRIx64 "\n", (uint64_t)c->metadata);
		printf("cdw10        : %08x\n", c->cdw10);
		printf("cdw11        : %08x\n", c->cdw11);
		printf("cdw12        : %08x\n", c->cdw12);
		printf("cdw13        : %08x\n", c->cdw13);
		printf("cdw14        : %08x\n", c->cdw14);
		printf("cdw15        : %08x\n", c->cdw15);
		printf("timeout_ms   : %08x\n", c->timeout_ms);
	}
	if (cfg->dry)
		goto out;
	ret = submit(admin ? NVME_URING_CMD_ADMIN : NVME_URING_CMD_IO, c, &result);
	if (ret) {
		report("passthru", ret);
		goto out;
	}
	fprintf(stderr, "%s Command opcode %#04x is Success and result: 0x%08x\n",
		admin ? "Admin" : "IO", c->opcode, result);
	if (!cfg->read)
		goto out;
	if (cfg->input) {
		if (data && write(dfd, data, c->data_len) != (ssize_t)c->data_len)
			perror("failed to write data buffer");
		if (md && mfd >= 0 &&
		    write(mfd, md, c->metadata_len) != (ssize_t)c->metadata_len)
			perror("failed to write metadata buffer");
	} else if (data && (cfg->raw || cfg->fmt == FMT_BINARY)) {
		ret = raw_out(data, c->data_len);
	} else if (data) {
		hexdump(data, c->data_len);
	}
out:
	if (dfd >= 0)
		close(dfd);
	if (mfd >= 0)
		close(mfd);
	free(data);
	free(md);
	return ret;
}

/* ---- main ----------------------------------------------------------- */

static const struct verb {
	const char *name, *help, *shortopts;
} verbs[] = {
	{ "id-ctrl", "Identify Controller", "o:b" },
	{ "id-ns", "Identify Namespace", "n:o:b" },
	{ "smart-log", "SMART / Health log page", "n:o:b" },
	{ "get-log", "any log page: -i LID -l LEN [-n NSID] [-o LPO] [-s LSP] [-S LSI] [-r] [-y CSI] [-b]",
	  "n:i:l:o:s:S:ry:b" },
	{ "get-feature", "Get Features: -f FID [-s SEL] [-c CDW11] [-n NSID] [-l LEN] [-b]",
	  "f:n:s:l:bc:" },
	{ "admin-passthru", "any admin command: -o OPCODE [-n NSID] [-4 CDW10..-9 CDW15] [-l LEN -r|-w] [-b]",
	  "o:f:p:R:n:l:m:t:2:3:4:5:6:7:8:9:i:M:bsdrw" },
	{ "io-passthru", "any I/O command, as admin-passthru", "o:f:p:R:n:l:m:t:2:3:4:5:6:7:8:9:i:M:bsdrw" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: " PROG " VERB DEVICE [OPTIONS]\n"
		"nvme-cli's verbs and options, each command sent through io_uring\n"
		"(IORING_OP_URING_CMD) on DEVICE: /dev/nvmeXnY (a kernel with the\n"
		"uringcmd series), /dev/ngXnY or /dev/nvmeX.\n\nverbs:\n");
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		fprintf(f, "  %-15s %s\n", verbs[i].name, verbs[i].help);
	fprintf(f, "\n-o normal|json|binary (id-ctrl, id-ns, smart-log; --output-format),\n"
		"-b raw binary; long option names as nvme-cli's (--namespace-id, ...)\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output-format", required_argument, NULL, 'F' },
		{ "raw-binary", no_argument, NULL, 'b' },
		{ "namespace-id", required_argument, NULL, 'n' },
		{ "log-id", required_argument, NULL, 'i' },
		{ "log-len", required_argument, NULL, 'L' },
		{ "lpo", required_argument, NULL, 'P' },
		{ "lsp", required_argument, NULL, 'Q' },
		{ "lsi", required_argument, NULL, 'S' },
		{ "rae", no_argument, NULL, 'r' },
		{ "csi", required_argument, NULL, 'y' },
		{ "feature-id", required_argument, NULL, 'f' },
		{ "sel", required_argument, NULL, 'T' },
		{ "data-len", required_argument, NULL, 'l' },
		{ "cdw11", required_argument, NULL, '5' },
		{ "opcode", required_argument, NULL, 'O' },
		{ "flags", required_argument, NULL, 'G' },
		{ "prefill", required_argument, NULL, 'p' },
		{ "rsvd", required_argument, NULL, 'R' },
		{ "metadata-len", required_argument, NULL, 'm' },
		{ "timeout", required_argument, NULL, 't' },
		{ "cdw2", required_argument, NULL, '2' },
		{ "cdw3", required_argument, NULL, '3' },
		{ "cdw10", required_argument, NULL, '4' },
		{ "cdw12", required_argument, NULL, '6' },
		{ "cdw13", required_argument, NULL, '7' },
		{ "cdw14", required_argument, NULL, '8' },
		{ "cdw15", required_argument, NULL, '9' },
		{ "input-file", required_argument, NULL, 'I' },
		{ "metadata", required_argument, NULL, 'M' },
		{ "show-command", no_argument, NULL, 'W' },
		{ "dry-run", no_argument, NULL, 'd' },
		{ "read", no_argument, NULL, 'D' },
		{ "write", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct verb *verb = NULL;
	struct cfg cfg = { .lid = 0xff, .csi = 0 };
	bool passthru, is_log;
	int opt, ret, flags = O_RDONLY;
	size_t i;

	if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(argv[1], verbs[i].name))
			verb = &verbs[i];
	if (!verb) {
		fprintf(stderr, PROG ": unknown verb '%s' (" PROG " help lists them)\n",
			argv[1]);
		return 2;
	}
	passthru = strstr(verb->name, "passthru");
	is_log = !strcmp(verb->name, "get-log");
	argv++;
	argc--;
	/* the short letters mean what they mean in nvme-cli's verb */
	while ((opt = getopt_long(argc, argv, verb->shortopts, longopts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			if (passthru)
				cfg.cmd.opcode = (__u8)num("opcode", optarg, 0xff);
			else if (is_log)
				cfg.lpo = num("lpo", optarg, UINT64_MAX);
			else
				cfg.fmt = parse_fmt(optarg);
			break;
		case 'F':
			cfg.fmt = parse_fmt(optarg);
			break;
		case 'b':
			cfg.raw = true;
			break;
		case 'n':
			cfg.nsid = (__u32)num("namespace-id", optarg, UINT32_MAX);
			cfg.nsid_given = true;
			cfg.cmd.nsid = cfg.nsid;
			break;
		case 'i':
			if (passthru)
				cfg.input = optarg;
			else
				cfg.lid = (__u8)num("log-id", optarg, 0xff);
			break;
		case 'I':
			cfg.input = optarg;
			break;
		case 'L':
			cfg.len = (__u32)num("log-len", optarg, UINT32_MAX);
			break;
		case 'l':
			cfg.len = (__u32)num(is_log ? "log-len" : "data-len", optarg, UINT32_MAX);
			cfg.cmd.data_len = cfg.len;
			cfg.data_len_given = true;
			break;
		case 'P':
			cfg.lpo = num("lpo", optarg, UINT64_MAX);
			break;
		case 's':
			if (passthru)
				cfg.show = true;
			else if (is_log)
				cfg.lsp = (__u8)num("lsp", optarg, 0x7f);
			else
				cfg.sel = (__u8)num("sel", optarg, 8);
			break;
		case 'Q':
			cfg.lsp = (__u8)num("lsp", optarg, 0x7f);
			break;
		case 'T':
			cfg.sel = (__u8)num("sel", optarg, 8);
			break;
		case 'S':
			cfg.lsi = (__u16)num("lsi", optarg, 0xffff);
			break;
		case 'r':
			if (passthru)
				cfg.read = true;
			else
				cfg.rae = true;
			break;
		case 'D':
			cfg.read = true;
			break;
		case 'y':
			cfg.csi = (__u8)num("csi", optarg, 0xff);
			break;
		case 'f':
			if (passthru)
				cfg.cmd.flags = (__u8)num("flags", optarg, 0xff);
			else
				cfg.fid = (__u8)num("feature-id", optarg, 0xff);
			break;
		case 'G':
			cfg.cmd.flags = (__u8)num("flags", optarg, 0xff);
			break;
		case 'O':
			cfg.cmd.opcode = (__u8)num("opcode", optarg, 0xff);
			break;
		case 'c':
		case '5':
			cfg.cdw11 = (__u32)num("cdw11", optarg, UINT32_MAX);
			cfg.cmd.cdw11 = cfg.cdw11;
			break;
		case 'p':
			cfg.prefill = (__u8)num("prefill", optarg, 0xff);
			break;
		case 'R':
			cfg.cmd.rsvd1 = (__u16)num("rsvd", optarg, 0xffff);
			break;
		case 'm':
			cfg.md_len = (__u32)num("metadata-len", optarg, UINT32_MAX);
			break;
		case 't':
			cfg.cmd.timeout_ms = (__u32)num("timeout", optarg, UINT32_MAX);
			break;
		case '2':
			cfg.cmd.cdw2 = (__u32)num("cdw2", optarg, UINT32_MAX);
			break;
		case '3':
			cfg.cmd.cdw3 = (__u32)num("cdw3", optarg, UINT32_MAX);
			break;
		case '4':
			cfg.cmd.cdw10 = (__u32)num("cdw10", optarg, UINT32_MAX);
			break;
		case '6':
			cfg.cmd.cdw12 = (__u32)num("cdw12", optarg, UINT32_MAX);
			break;
		case '7':
			cfg.cmd.cdw13 = (__u32)num("cdw13", optarg, UINT32_MAX);
			break;
		case '8':
			cfg.cmd.cdw14 = (__u32)num("cdw14", optarg, UINT32_MAX);
			break;
		case '9':
			cfg.cmd.cdw15 = (__u32)num("cdw15", optarg, UINT32_MAX);
			break;
		case 'M':
			cfg.metadata = optarg;
			break;
		case 'W':
			cfg.show = true;
			break;
		case 'd':
			cfg.dry = true;
			break;
		case 'w':
			cfg.write = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, PROG ": %s: see '" PROG " help'\n", verb->name);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, PROG ": %s: name one device (/dev/nvmeXnY, /dev/ngXnY or /dev/nvmeX)\n",
			verb->name);
		return 2;
	}
	dev_path = argv[optind];
	out_fmt = cfg.fmt;
	/* a write command on a block node needs the node open for writing */
	if (passthru && (cfg.write || cfg.cmd.opcode & 1))
		flags = O_RDWR;
	dev_fd = open(dev_path, flags);
	if (dev_fd < 0) {
		fprintf(stderr, PROG ": %s: %s\n", dev_path, strerror(errno));
		return 1;
	}
	if (!uringcmd_nvme_node(dev_fd)) {
		fprintf(stderr, PROG ": %s: not an NVMe namespace, generic node or "
			"controller\n", dev_path);
		return 1;
	}

	if (!strcmp(verb->name, "id-ctrl"))
		ret = do_identify(&cfg, false);
	else if (!strcmp(verb->name, "id-ns"))
		ret = do_identify(&cfg, true);
	else if (!strcmp(verb->name, "smart-log"))
		ret = do_smart_log(&cfg);
	else if (is_log)
		ret = do_get_log(&cfg);
	else if (!strcmp(verb->name, "get-feature"))
		ret = do_get_feature(&cfg);
	else
		ret = do_passthru(&cfg, !strcmp(verb->name, "admin-passthru"));
	close(dev_fd);
	return ret ? 1 : 0;
}
