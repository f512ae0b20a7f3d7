// Sub-group primitives of the multisplit ranking (radix_rank_multisplit.cl) through cl_khr_subgroups and
// cl_khr_subgroup_ballot, with RADIX_SG lanes (4..64): the plan uses it where the device reports the
// ballot and can be held to that sub-group size (cl_intel_required_subgroup_size: RADIX_SG_REQUIRED=1).
// A sub-group's lanes are numbered by get_sub_group_local_id(); which local ids it holds does not matter,
// since keys are assigned by (sub-group, lane).
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#pragma OPENCL EXTENSION cl_khr_subgroup_ballot : enable
#ifndef RADIX_SG
#define RADIX_SG 16
#endif
#define SG_LANES RADIX_SG
#if RADIX_SG_REQUIRED
#define SG_KERNEL_ATTRS __attribute__((intel_reqd_sub_group_size(RADIX_SG)))
#else
#define SG_KERNEL_ATTRS
#endif
#define SG_HAS_BALLOT 1
#if SG_LANES > 32
typedef ulong sgmask_t;
INLINE sgmask_t sg_mask_of(uint4 m) {
  return (ulong)m.x | (ulong)m.y << 32;
}
#else
typedef uint sgmask_t;
INLINE sgmask_t sg_mask_of(uint4 m) {
  return m.x;
}
#endif

INLINE uint sg_lane(void) {
  return get_sub_group_local_id();
}
INLINE uint sg_index(void) {
  return get_sub_group_id();
}
// From the lane id rather than get_sub_group_lt_mask(), which Intel's CPU runtime (2026.2) answers with
// the lane's own bit at 64 lanes (lane 1 gets 0x2), ranking every key wrongly.
INLINE sgmask_t sg_lanes_below(void) {
  return ((sgmask_t)1 << sg_lane()) - 1;
}
INLINE void sg_sync(void) {
  sub_group_barrier(CLK_LOCAL_MEM_FENCE);
}
INLINE sgmask_t sg_ballot(uint p) {
  return sg_mask_of(sub_group_ballot((int)p));
}

#define RANK_SCAN_WORDS RADIX_WG
INLINE uint rank_scan_exclusive(uint v, local uint* s) {
  uint total;
  return group_scan_exclusive(v, s, &total);
}
