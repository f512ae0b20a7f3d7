// The self-test of a set of sub-group primitives (a radix_sg_*.cl file, which this follows): before a
// device's ranking uses the PTX warps or its cl_khr_subgroup_ballot, one work-group of the ranking's size
// reports what each primitive answers, and the host (host/src/algorithms/radix/radix_probe.cpp) checks it. A
// compiler that takes the source but numbers lanes, forms sub-groups or votes otherwise than the ranking
// assumes sends the device to the local-memory sub-groups instead of sorting wrongly.

// Each work-item writes RADIX_PROBE_WORDS words at out + RADIX_PROBE_WORDS * local id: its lane and
// sub-group, the lanes below it (two words: up to 64 lanes), its sub-group's ballot of "lane * 7 +
// sub-group is a multiple of 3" (two words; zero without a ballot), the local id of the next lane of its
// sub-group as read back through local memory after sg_sync, and rank_scan_exclusive over (local id % 5
// + 1) in local-id order.
#define RADIX_PROBE_WORDS 8
kernel __attribute__((reqd_work_group_size(RADIX_WG, 1, 1))) SG_KERNEL_ATTRS void radix_sg_probe(
    global uint* out) {
  local uint scan_tmp[RANK_SCAN_WORDS];
  local uint ids[RADIX_WG];
  const uint lid = get_local_id(0);
  const uint lane = sg_lane(), sg = sg_index();
  global uint* o = out + RADIX_PROBE_WORDS * lid;
  const ulong below = (ulong)sg_lanes_below();
#if SG_HAS_BALLOT
  const ulong voted = (ulong)sg_ballot((lane * 7 + sg) % 3 == 0);
#else
  const ulong voted = 0;
#endif
  // Written and read through the (sub-group, lane) numbering, as the ranking's counters are.
  const bool numbered = lane < SG_LANES && sg < RADIX_WG / SG_LANES;
  if (numbered) ids[sg * SG_LANES + lane] = lid;
  sg_sync();
  const uint next = numbered ? ids[sg * SG_LANES + (lane + 1) % SG_LANES] : 0xFFFFFFFFu;
  const uint scanned = rank_scan_exclusive(lid % 5 + 1, scan_tmp);
  o[0] = lane;
  o[1] = sg;
  o[2] = (uint)below;
  o[3] = (uint)(below >> 32);
  o[4] = (uint)voted;
  o[5] = (uint)(voted >> 32);
  o[6] = next;
  o[7] = scanned;
}
