// Sub-group primitives of the multisplit ranking (radix_rank_multisplit.cl) for devices with no
// sub-groups (OpenCL C 1.2 only): groups of consecutive work-items stand in for them, and since nothing
// keeps their lanes together, a work-group barrier orders their local memory (every work-item calls
// sg_sync the same number of times). No ballot: peers meet in local memory.
#if RADIX_WG % 32 == 0
#define SG_LANES 32
#elif RADIX_WG % 16 == 0
#define SG_LANES 16
#else
#define SG_LANES 8
#endif
#define SG_KERNEL_ATTRS
#define SG_HAS_BALLOT 0
typedef uint sgmask_t;

INLINE uint sg_lane(void) {
  return get_local_id(0) % SG_LANES;
}
INLINE uint sg_index(void) {
  return get_local_id(0) / SG_LANES;
}
INLINE sgmask_t sg_lanes_below(void) {
  return (1u << sg_lane()) - 1u;
}
INLINE void sg_sync(void) {
  barrier(CLK_LOCAL_MEM_FENCE);
}

#define RANK_SCAN_WORDS RADIX_WG
INLINE uint rank_scan_exclusive(uint v, local uint* s) {
  uint total;
  return group_scan_exclusive(v, s, &total);
}
