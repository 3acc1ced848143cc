// SPDX-License-Identifier: GPL-2.0
/*
 * The library's host-side protection information, on its own: what
 * uringcmd_nvme_pi16_generate() writes, uringcmd_nvme_pi16_check() accepts,
 * and each kind of damage is reported with its block and field. The guest
 * tests (fio_meta_pi, nvme_pi) show the controller accepts the same PI;
 * there the controller checks first, so the failure paths are shown here.
 * Built and run by tests/host/lib_pi.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uringcmd-nvme.h>

#define NLB	8
#define SLBA	0x123456789ULL

static int failures;

#define EXPECT(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			printf("FAIL lib_pi[host]: " __VA_ARGS__);	\
			printf("\n");					\
			failures++;					\
		}							\
	} while (0)

static void one(unsigned int lbs, unsigned int ms, bool first, unsigned int type)
{
	const struct uringcmd_nvme_pi_layout l = { lbs, ms, first, type };
	const unsigned int all = NVME_IO_PRINFO_PRCHK_GUARD | NVME_IO_PRINFO_PRCHK_APP |
				 NVME_IO_PRINFO_PRCHK_REF;
	struct uringcmd_nvme_pi_error e;
	unsigned char *data = malloc((size_t)NLB * lbs), *md = malloc((size_t)NLB * ms);
	struct uringcmd_nvme_pi16 *pi;
	unsigned int i;
	int ret;

	if (!data || !md)
		exit(2);
	for (i = 0; i < NLB * lbs; i++)
		data[i] = (unsigned char)(i * 7 + lbs);
	for (i = 0; i < NLB * ms; i++)
		md[i] = (unsigned char)(i * 13 + 1);
	uringcmd_nvme_pi16_generate(&l, data, md, SLBA, NLB, 0x1234);

	/* the layout: the PI where the format puts it, the rest untouched */
	pi = uringcmd_nvme_pi16_of(&l, md, 3);
	EXPECT((unsigned char *)pi == md + 3 * ms + (first ? 0 : ms - 8),
	       "%u+%u: block 3's PI not where the format has it", lbs, ms);
	EXPECT(be16toh(pi->apptag) == 0x1234 &&
	       be32toh(pi->reftag) == (type == 3 ? 0 : (__u32)(SLBA + 3)),
	       "%u+%u type %u: apptag %#x reftag %#x", lbs, ms, type,
	       be16toh(pi->apptag), be32toh(pi->reftag));
	EXPECT(be16toh(pi->guard) == uringcmd_nvme_crc_t10dif(
		       first ? 0 : uringcmd_nvme_crc_t10dif(0, data + 3 * lbs, lbs),
		       first ? data + 3 * lbs : md + 3 * ms, first ? lbs : ms - 8),
	       "%u+%u: the guard is not the CRC of the data%s", lbs, ms,
	       first ? "" : " and the metadata before the PI");

	ret = uringcmd_nvme_pi16_check(&l, data, md, SLBA, NLB, all, 0x1234, 0xffff, &e);
	EXPECT(!ret, "%u+%u type %u: its own PI refused (block %u field %u)",
	       lbs, ms, type, e.block, e.field);

	/* a data byte of block 5 */
	data[5 * lbs + 17] ^= 0x40;
	ret = uringcmd_nvme_pi16_check(&l, data, md, SLBA, NLB, all, 0x1234, 0xffff, &e);
	EXPECT(ret == -EIO && e.block == 5 && e.field == NVME_IO_PRINFO_PRCHK_GUARD,
	       "%u+%u: a changed data byte: %d, block %u field %u", lbs, ms, ret,
	       e.block, e.field);
	ret = uringcmd_nvme_pi16_check(&l, data, md, SLBA, NLB,
				       NVME_IO_PRINFO_PRCHK_APP | NVME_IO_PRINFO_PRCHK_REF,
				       0x1234, 0xffff, &e);
	EXPECT(!ret, "%u+%u: guard not asked for, yet refused", lbs, ms);
	data[5 * lbs + 17] ^= 0x40;

	/* a metadata byte outside the PI counts only with PI last */
	if (ms > 8) {
		md[2 * ms + (first ? 8 : 0)] ^= 1;
		ret = uringcmd_nvme_pi16_check(&l, data, md, SLBA, NLB, all, 0x1234,
					       0xffff, &e);
		EXPECT(first ? !ret : ret == -EIO && e.block == 2 &&
		       e.field == NVME_IO_PRINFO_PRCHK_GUARD,
		       "%u+%u PI %s: a metadata byte outside the PI: %d", lbs, ms,
		       first ? "first" : "last", ret);
		md[2 * ms + (first ? 8 : 0)] ^= 1;
	}

	/* the application tag, under its mask */
	ret = uringcmd_nvme_pi16_check(&l, data, md, SLBA, NLB, all, 0x1299, 0xffff, &e);
	EXPECT(ret == -EIO && e.block == 0 && e.field == NVME_IO_PRINFO_PRCHK_APP &&
	       e.expected == 0x1299 && e.actual == 0x1234,
	       "%u+%u: wrong apptag: %d, field %u, %#x against %#x", lbs, ms, ret,
	       e.field, e.expected, e.actual);
	ret = uringcmd_nvme_pi16_check(&l, data, md, SLBA, NLB, all, 0x1299, 0xff00, &e);
	EXPECT(!ret, "%u+%u: apptag differing outside apptag_mask refused", lbs, ms);

	/* the reference tag: another LBA (types 1 and 2 only) */
	ret = uringcmd_nvme_pi16_check(&l, data, md, SLBA + 1, NLB, all, 0x1234, 0xffff, &e);
	EXPECT(type == 3 ? !ret : ret == -EIO && e.field == NVME_IO_PRINFO_PRCHK_REF &&
	       e.expected == (__u32)(SLBA + 1) && e.actual == (__u32)SLBA,
	       "%u+%u type %u: read at another LBA: %d, field %u", lbs, ms, type,
	       ret, e.field);

	/* escape: application tag FFFFh (and, type 3, reference tag FFFFFFFFh) */
	pi = uringcmd_nvme_pi16_of(&l, md, 6);
	pi->guard ^= htobe16(0x5555);
	pi->apptag = 0xffff;
	if (type == 3)
		pi->reftag = 0xffffffff;
	ret = uringcmd_nvme_pi16_check(&l, data, md, SLBA, NLB, all, 0x1234, 0xffff, &e);
	EXPECT(!ret, "%u+%u type %u: an escaped block was checked (block %u)",
	       lbs, ms, type, e.block);
	if (type == 3) {
		pi->reftag = 0;
		ret = uringcmd_nvme_pi16_check(&l, data, md, SLBA, NLB, all, 0x1234,
					       0xffff, &e);
		EXPECT(ret == -EIO && e.block == 6,
		       "%u+%u type 3: apptag FFFFh alone escaped the check", lbs, ms);
	}
	free(data);
	free(md);
}

int main(void)
{
	/* CRC-16/T10-DIF's check value */
	EXPECT(uringcmd_nvme_crc_t10dif(0, "123456789", 9) == 0xd0db,
	       "CRC-16/T10-DIF of '123456789' is %#x, not 0xd0db",
	       uringcmd_nvme_crc_t10dif(0, "123456789", 9));
	one(512, 8, false, 1);
	one(512, 8, true, 1);
	one(4096, 16, false, 1);
	one(4096, 16, true, 2);
	one(512, 16, false, 3);
	one(512, 64, true, 3);
	if (failures)
		return 1;
	printf("PASS lib_pi[host]\n");
	return 0;
}
