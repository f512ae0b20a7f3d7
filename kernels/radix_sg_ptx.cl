// Sub-group primitives of the multisplit ranking (radix_rank_multisplit.cl) on NVIDIA: warps of 32
// through inline PTX, which only NVIDIA's compiler takes. Warps are formed from consecutive local ids, so
// warp w is local ids 32w..32w+31; within a warp everything is in terms of %laneid.
#define SG_LANES 32
#define SG_KERNEL_ATTRS
#define SG_HAS_BALLOT 1
typedef uint sgmask_t;

// The lane id and mask are fixed for a work-item, so these reads are not volatile: the compiler may keep
// them. Volatile reads, issued again at every call, made the prefetching Onesweep pass of 4-byte keys far
// slower (docs/tuning.md, nvidia/gpu/default).
INLINE uint sg_lane(void) {
  uint r;
  asm("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}
INLINE uint sg_index(void) {
  return get_local_id(0) / 32;
}
INLINE sgmask_t sg_lanes_below(void) {
  uint r;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(r));
  return r;
}
// Lanes of a warp may run apart (independent thread scheduling): this joins them and orders their local
// memory accesses, so a counter one lane writes is what the others read next.
INLINE void sg_sync(void) {
  asm volatile("bar.warp.sync 0xffffffff;" ::: "memory");
}
INLINE sgmask_t sg_ballot(uint p) {
  uint r;
  asm volatile("{ .reg .pred q; setp.ne.u32 q, %1, 0; vote.sync.ballot.b32 %0, q, 0xffffffff; }"
               : "=r"(r)
               : "r"(p));
  return r;
}
INLINE uint ptx_shfl_up(uint v, uint delta) {
  uint r;
  asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(r) : "r"(v), "r"(delta));
  return r;
}

// Exclusive scan of one value per work-item in work-item order: shuffles within each warp, then each
// work-item adds the totals of the warps before it. One barrier; warp_tot may be rewritten only after
// the caller's next barrier.
#define RANK_SCAN_WORDS (RADIX_WG / 32)
INLINE uint rank_scan_exclusive(uint v, local uint* warp_tot) {
  const uint lane = sg_lane(), warp = sg_index();
  uint x = v;
#pragma unroll
  for (uint off = 1; off < 32; off <<= 1) {
    const uint y = ptx_shfl_up(x, off);
    if (lane >= off) x += y;
  }
  if (lane == 31) warp_tot[warp] = x;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint before = 0;
  for (uint w = 0; w < warp; ++w) before += warp_tot[w];
  return before + x - v;
}
