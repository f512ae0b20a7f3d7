// Radix ranking by warp-level multisplit on NVIDIA (tuning radix.match=1; the plan sets RADIX_MATCH on
// NVIDIA devices only): inline PTX, warps of 32. Follows radix_common.cl.
// ---- NVIDIA shape (tuning radix.match=1, set by the driver on NVIDIA devices only): warp-level multisplit.
// Each warp counts its keys' digits into per-warp counters (local atomics), a block scan turns the counts
// into where each (digit, warp) run starts, and each warp then ranks its keys one item at a time: the
// lanes holding the same digit find each other through a per-warp mask word that each ORs its bit into,
// and take consecutive places in input order. Counting first (CUB's "early counts") lets Onesweep publish
// a tile's counts before the ranking. Needs inline PTX, a warp of 32 (NVIDIA's) and a work-group of whole
// warps, which the driver checks.
// Warps are formed from consecutive local ids, so warp w is local ids 32w..32w+31; within a warp
// everything is in terms of %laneid.
#if RADIX_WG % 32 != 0
#error "RADIX_MATCH needs a work-group of whole warps"
#endif
#if RADIX > RADIX_WG
#error "RADIX_MATCH needs a work-item per digit (RADIX <= RADIX_WG)"
#endif
#define WARPS (RADIX_WG / 32)
#define WARP_ITEMS (32 * RADIX_ITEMS)  // a warp's contiguous share of the block
#define HIST_LOADS 8                   // keys each work-item loads before counting them

INLINE uint ptx_lane_id(void) {
  uint r;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}
INLINE uint ptx_lanemask_lt(void) {
  uint r;
  asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(r));
  return r;
}
INLINE uint ptx_shfl_up(uint v, uint delta) {
  uint r;
  asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(r) : "r"(v), "r"(delta));
  return r;
}
// Lanes of a warp may run apart (independent thread scheduling): this joins them and orders their local
// memory accesses, so a counter one lane writes is what the others read next.
INLINE void ptx_warp_sync(void) {
  asm volatile("bar.warp.sync 0xffffffff;" ::: "memory");
}

// Exclusive scan of one value per work-item in work-item order: shuffles within each warp, then each
// work-item adds the totals of the warps before it. One barrier; warp_tot may be rewritten only after
// the caller's next barrier.
INLINE uint warp_group_scan_exclusive(uint v, uint lane, uint warp, local uint* warp_tot) {
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

// The multisplit shape's local memory: the block's keys (then its values) in digit order share words with
// the ranking state, per-warp digit counters (warp-major; after the block scan, where each (digit, warp)
// run starts in the block) and per-warp peer masks; ranks wait in registers while the block is exchanged.
#define KEY_BYTES (KEY_BITS / 8)
#define TILE_BYTES (KEY_BYTES > VALUE_BYTES ? KEY_BYTES : VALUE_BYTES)
#define RANK_WORDS (2 * WARPS * RADIX)
#define TILE_WORDS (RADIX_BLOCK * TILE_BYTES / 4)
#define MATCH_WORDS (TILE_WORDS > RANK_WORDS ? TILE_WORDS : RANK_WORDS)
#define RANK_LOCALS                                            \
  local ulong match_mem[(MATCH_WORDS + 1) / 2];                \
  local uint* const wcount = (local uint*)match_mem;           \
  local uint* const wmask = wcount + WARPS * RADIX;            \
  local ukey_t* const lk = (local ukey_t*)match_mem;           \
  VALUES(local value_t* const lv = (local value_t*)match_mem;) \
  local uint warp_tot[WARPS]

// Loads the block [blk, blk + valid) of src warp-striped into k: warp w holds block positions
// [w * WARP_ITEMS, (w + 1) * WARP_ITEMS), item j of lane l being position w * WARP_ITEMS + 32 j + l.
// Every load is issued before any key is looked at: encoding as each key arrives made the compiler wait
// for each load in turn (the first pass took 0.14 ms instead of 0.10 at 2^24 u32 keys on the H100).
INLINE void load_keys(global const ukey_t* src, uint blk, uint valid, ukey_t* k) {
  const uint first = get_local_id(0) / 32 * WARP_ITEMS + ptx_lane_id();
#pragma unroll
  for (uint j = 0; j < RADIX_ITEMS; ++j) {
    const uint p = first + 32 * j;
    k[j] = p < valid ? src[blk + p] : 0;
  }
}

// Counts the digits of the block that load_keys put into k, encoding its keys if asked: wcount then
// holds where each (digit, warp) run starts in the block's digit order, and work-item d < RADIX gets the
// number of keys of digit d in the block (*count) and where they start (*start). Slots past the end
// become the largest key: the largest digit and the latest positions, so they rank last. Ends with a
// barrier.
INLINE void count_keys(uint valid, uint shift, uint encode, uint kind, uint descending, ukey_t* k,
                       local uint* wcount, local uint* wmask, local uint* warp_tot, uint* count,
                       uint* start) {
  const uint lid = get_local_id(0);
  const uint lane = ptx_lane_id(), warp = lid / 32;
  local uint* my_count = wcount + warp * RADIX;
  local uint* my_mask = wmask + warp * RADIX;
  for (uint d = lane; d < RADIX; d += 32) my_count[d] = my_mask[d] = 0;
  const uint first = warp * WARP_ITEMS + lane;
#pragma unroll
  for (uint j = 0; j < RADIX_ITEMS; ++j)
    k[j] = first + 32 * j >= valid ? KEY_MAX : encode ? encode_key(k[j], kind, descending) : k[j];
  ptx_warp_sync();
#pragma unroll
  for (uint j = 0; j < RADIX_ITEMS; ++j) atomic_inc(&my_count[digit_of(k[j], shift)]);
  barrier(CLK_LOCAL_MEM_FENCE);

  // Block scan over (digit, warp) in digit-major order: work-item d sums its digit over the warps,
  // one group scan gives the digit's start in the block, and d writes each warp's start back.
  uint total = 0;
  if (lid < RADIX)
    for (uint w = 0; w < WARPS; ++w) total += wcount[w * RADIX + lid];
  *start = warp_group_scan_exclusive(total, lane, warp, warp_tot);
  *count = total;
  if (lid < RADIX) {
    uint run = *start;
    for (uint w = 0; w < WARPS; ++w) {
      const uint c = wcount[w * RADIX + lid];
      wcount[w * RADIX + lid] = run;
      run += c;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

INLINE void count_block(global const ukey_t* src, uint blk, uint valid, uint shift, uint encode, uint kind,
                        uint descending, ukey_t* k, local uint* wcount, local uint* wmask,
                        local uint* warp_tot, uint* count, uint* start) {
  load_keys(src, blk, valid, k);
  count_keys(valid, shift, encode, kind, descending, k, wcount, wmask, warp_tot, count, start);
}

// Ranks the keys counted by count_keys: to[j] is item j's place in the block's digit order. Item by item,
// the lanes sharing a digit OR their bits into the digit's mask word, so each sees its peers; the lowest
// of them advances the digit's counter by their number and clears the word, and each key's place is the
// old counter plus its peers in lower lanes. Items in order and lanes in order within an item are input
// order, so the sort stays stable. Only this warp touches its counters and masks, so warp syncs order
// them. One local atomic per key instead of a ballot per digit bit: four passes over 2^24 random u32 keys
// took 0.45 ms instead of 0.51 on the H100 (22 keys per work-item), and sorted input, where a warp's keys
// share a digit and their atomics collide, 0.43 instead of 0.53. Ends with a barrier, after which the
// ranking state's words are free for the tile.
INLINE void rank_keys(const ukey_t* k, uint shift, local uint* wcount, local uint* wmask, uint* to) {
  const uint lane = ptx_lane_id(), warp = get_local_id(0) / 32;
  const uint lanes_before = ptx_lanemask_lt();
  local uint* my_count = wcount + warp * RADIX;
  local uint* my_mask = wmask + warp * RADIX;
#pragma unroll
  for (uint j = 0; j < RADIX_ITEMS; ++j) {
    const uint d = digit_of(k[j], shift);
    atomic_or(&my_mask[d], 1u << lane);
    ptx_warp_sync();
    const uint peers = my_mask[d];
    const uint lower = peers & lanes_before;
    const uint before = my_count[d];
    ptx_warp_sync();
    if (lower == 0) {
      my_count[d] = before + popcount(peers);
      my_mask[d] = 0;
    }
    ptx_warp_sync();
    to[j] = before + popcount(lower);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

#if VALUE_BYTES != 0
// When the Onesweep pass loads the block's values. Early (before the look-back) hides the loads behind it;
// late (after the keys are stored) keeps the values out of the registers while the keys go to local
// memory, through the look-back and out, which lets 4-byte keys take tiles of 32 without spilling: H100, u32
// pairs Gkeys/s 2^26 26.9 -> 28.0, 2^28 28.1 -> 29.2 (28 keys early, 4 bytes of spill), 2^24 24.5 -> 24.3.
// 8-byte keys fill local memory before registers (21 keys), and late loads cost them 3% at 2^26.
#define VALUES_EARLY (KEY_BITS == 64)

// Loads the block's values warp-striped, like load_keys' keys (padding defined, never stored).
INLINE void load_values(global const value_t* vsrc, uint blk, uint valid, value_t* v) {
  const uint first = get_local_id(0) / 32 * WARP_ITEMS + ptx_lane_id();
#pragma unroll
  for (uint j = 0; j < RADIX_ITEMS; ++j) v[j] = first + 32 * j < valid ? vsrc[blk + first + 32 * j] : 0;
}

// Puts the values into the tile's local memory (lv) at their keys' places in the block (to), once
// store_keys has read the keys out of the same words.
INLINE void exchange_values(const value_t* v, const uint* to, local value_t* lv) {
  barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
  for (uint j = 0; j < RADIX_ITEMS; ++j) lv[to[j]] = v[j];
  barrier(CLK_LOCAL_MEM_FENCE);
}
#endif

