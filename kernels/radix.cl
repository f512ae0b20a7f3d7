// LSD radix sort, portable reduce-then-scan form: per pass a histogram, a scan and a stable scatter.
//
// `groups` work-groups each own a contiguous run of blocks (blocks_per_group blocks of RADIX_BLOCK keys),
// so the stable position of a key is: keys of smaller digits everywhere + keys of its digit in earlier
// groups (both from the scanned histogram) + keys of its digit earlier in this group. The last term is
// found block by block: the block is sorted stably by digit in local memory (a counting sort per 4 bits),
// which also makes the global writes of one digit contiguous.
// Keys are encoded (common.cl) as the first pass reads them and decoded as the last pass writes them.

// PTX_MAXNREG, when defined, is for the host, not for this file: on NVIDIA it caps each kernel's registers
// in the PTX binary (host/src/program_cache.cpp), which gives the Onesweep pass a fourth work-group per SM.

#ifndef RADIX_BITS
#define RADIX_BITS 8
#endif
#ifndef RADIX_WG
#define RADIX_WG 256
#endif
#ifndef RADIX_ITEMS
#define RADIX_ITEMS 8  // keys per work-item per block; at most 15 for the portable ranking's 4-bit counters
#endif
#if RADIX_ITEMS > 15 && !defined(RADIX_MATCH)
#error "RADIX_ITEMS must be at most 15 without RADIX_MATCH"
#endif
#if RADIX_ITEMS > 32
#error "RADIX_ITEMS must be at most 32"
#endif
#if RADIX_WG < 8 || RADIX_WG % 8 != 0
#error "RADIX_WG must be a multiple of 8"  // the portable block scan's raking segments are 8 work-items
#endif
// 1: the CPU shape's kernels only, 0: the GPU shape's. One program holds one shape, so a device never
// compiles kernels it will not run (PoCL's LLVM spends seconds per kernel on a cold build).
#ifndef RADIX_CPU
#define RADIX_CPU 0
#endif
#define RADIX (1u << RADIX_BITS)
#define RADIX_MASK (RADIX - 1u)
#define RADIX_BLOCK (RADIX_WG * RADIX_ITEMS)

inline uint digit_of(ukey_t k, uint shift) {
  return (uint)(k >> shift) & RADIX_MASK;
}

// Exclusive scan of one value per work-item; *total gets the sum. Called by the whole group.
inline uint group_scan_exclusive(uint v, local uint* s, uint* total) {
  const uint lid = get_local_id(0);
  s[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint off = 1; off < RADIX_WG; off <<= 1) {
    const uint add = lid >= off ? s[lid - off] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    s[lid] += add;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const uint inclusive = s[lid];
  *total = s[RADIX_WG - 1];
  barrier(CLK_LOCAL_MEM_FENCE);
  return inclusive - v;
}

inline uint2 group_range(uint n, uint blocks_per_group) {
  const ulong begin = (ulong)get_group_id(0) * blocks_per_group * RADIX_BLOCK;
  const ulong end = begin + (ulong)blocks_per_group * RADIX_BLOCK;
  return (uint2)((uint)min(begin, (ulong)n), (uint)min(end, (ulong)n));
}

#if !RADIX_CPU

#if VALUE_BYTES != 0
#define VALUES(...) __VA_ARGS__
#else
#define VALUES(...)
#endif

#ifdef RADIX_MATCH
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

#else                                            // !RADIX_MATCH

// Exclusive scan of 16 digit counters per work-item, packed two 16-bit counters per uint (block totals
// stay below 2^16, so the halves never carry into each other). Raking: each work-item serially scans 8
// consecutive work-items' entries of one of the 8 words, a short scan combines those segments, and the
// segment offsets are added back: about a quarter of the local traffic of a scan over whole vectors.
#define SCAN_SEGS (RADIX_WG / 8)                 // segments of 8 work-items per word
#define SCAN_PAD(i) ((i) + ((i) >> 6))           // skews rakers' strided accesses across banks
#define SCAN_WORDS (SCAN_PAD(RADIX_WG * 8) + 1)  // also holds each work-item's 16 ushort offsets
inline uint8 group_scan_exclusive8(uint8 v, local uint* s, local uint* seg_total, uint8* total) {
  const uint lid = get_local_id(0);
  uint mine[8];
  vstore8(v, 0, mine);
#pragma unroll
  for (uint w = 0; w < 8; ++w) s[SCAN_PAD(lid * 8 + w)] = mine[w];
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint w = lid / SCAN_SEGS, seg = lid % SCAN_SEGS;
  uint run = 0;
#pragma unroll
  for (uint i = 0; i < 8; ++i) {
    const uint at = SCAN_PAD((seg * 8 + i) * 8 + w);
    const uint x = s[at];
    s[at] = run;
    run += x;
  }
  seg_total[lid] = run;  // lid == w * SCAN_SEGS + seg
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint off = 1; off < SCAN_SEGS; off <<= 1) {
    const uint add = seg >= off ? seg_total[lid - off] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    seg_total[lid] += add;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const uint before = seg_total[lid] - run;
#pragma unroll
  for (uint i = 0; i < 8; ++i) s[SCAN_PAD((seg * 8 + i) * 8 + w)] += before;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint tot[8];
#pragma unroll
  for (uint j = 0; j < 8; ++j) {
    mine[j] = s[SCAN_PAD(lid * 8 + j)];
    tot[j] = seg_total[j * SCAN_SEGS + SCAN_SEGS - 1];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  *total = vload8(0, tot);
  return vload8(0, mine);
}

// The block-sorting state of the portable shape: the packed-counter scan (then each work-item's 16
// sub-digit offsets) and the scan's segment totals.
#define RANK_LOCALS          \
  local uint ls[SCAN_WORDS]; \
  local uint seg_total[RADIX_WG]

// Loads the block [blk, blk + valid) of src, encoding keys if asked, and leaves it in lk (lv) sorted
// stably by the digit: a counting sort per 4 bits, each work-item counting its RADIX_ITEMS consecutive
// keys per sub-digit in 4-bit fields of one register (hence RADIX_ITEMS <= 15), one group scan turning
// the counters into offsets. Slots past the end hold the largest key, which sorts last and stays last.
// Ends with a barrier.
INLINE void sort_block(global const ukey_t* src, VALUES(global const value_t* vsrc, ) uint blk, uint valid,
                       uint shift, uint encode, uint kind, uint descending, local ukey_t* lk,
                       VALUES(local value_t* lv, ) local uint* ls, local uint* seg_total) {
  const uint lid = get_local_id(0);
  local ushort* offsets = (local ushort*)ls;
  ukey_t k[RADIX_ITEMS];
  VALUES(value_t v[RADIX_ITEMS];)
  // Coalesced load, then a transpose through local memory so each work-item holds RADIX_ITEMS
  // consecutive keys (ranking them in order keeps the sort stable).
#pragma unroll
  for (uint j = 0; j < RADIX_ITEMS; ++j) {
    const uint p = lid + j * RADIX_WG;
    ukey_t key = KEY_MAX;
    // Padding slots move through the local sort like the rest (never stored): give them a defined
    // value, else every partial block reads indeterminate local memory (Oclgrind --uninitialized).
    VALUES(value_t val = 0;)
    if (p < valid) {
      key = src[blk + p];
      if (encode) key = encode_key(key, kind, descending);
      VALUES(val = vsrc[blk + p];)
    }
    lk[p] = key;
    VALUES(lv[p] = val;)
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
  for (uint j = 0; j < RADIX_ITEMS; ++j) {
    k[j] = lk[lid * RADIX_ITEMS + j];
    VALUES(v[j] = lv[lid * RADIX_ITEMS + j];)
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  for (uint sub = 0; sub < RADIX_BITS; sub += 4) {
    const uint sshift = shift + sub;
    if (sshift >= KEY_BITS) break;  // the top digit may be narrower than RADIX_BITS
    const uint smask = (1u << min(4u, (uint)RADIX_BITS - sub)) - 1u;
    ulong c = 0;
    uint r[RADIX_ITEMS];
#pragma unroll
    for (uint j = 0; j < RADIX_ITEMS; ++j) {
      const uint d4 = 4 * ((uint)(k[j] >> sshift) & smask);
      r[j] = (uint)(c >> d4) & 15u;
      c += 1UL << d4;
    }
    uint8 packed;
    packed.s0 = (uint)(c & 0xF) | (uint)((c >> 4) & 0xF) << 16;
    packed.s1 = (uint)((c >> 8) & 0xF) | (uint)((c >> 12) & 0xF) << 16;
    packed.s2 = (uint)((c >> 16) & 0xF) | (uint)((c >> 20) & 0xF) << 16;
    packed.s3 = (uint)((c >> 24) & 0xF) | (uint)((c >> 28) & 0xF) << 16;
    packed.s4 = (uint)((c >> 32) & 0xF) | (uint)((c >> 36) & 0xF) << 16;
    packed.s5 = (uint)((c >> 40) & 0xF) | (uint)((c >> 44) & 0xF) << 16;
    packed.s6 = (uint)((c >> 48) & 0xF) | (uint)((c >> 52) & 0xF) << 16;
    packed.s7 = (uint)((c >> 56) & 0xF) | (uint)((c >> 60) & 0xF) << 16;
    uint8 total8;
    const uint8 before = group_scan_exclusive8(packed, ls, seg_total, &total8);
    uint tot[8], pre[8];
    vstore8(total8, 0, tot);
    vstore8(before, 0, pre);
    uint base = 0;
#pragma unroll
    for (uint d = 0; d < 16; ++d) {
      const uint t = (d & 1) ? tot[d / 2] >> 16 : tot[d / 2] & 0xFFFF;
      const uint mine = (d & 1) ? pre[d / 2] >> 16 : pre[d / 2] & 0xFFFF;
      offsets[lid * 16 + d] = (ushort)(base + mine);
      base += t;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint j = 0; j < RADIX_ITEMS; ++j) {
      const uint to = offsets[lid * 16 + ((uint)(k[j] >> sshift) & smask)] + r[j];
      lk[to] = k[j];
      VALUES(lv[to] = v[j];)
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint j = 0; j < RADIX_ITEMS; ++j) {
      k[j] = lk[lid * RADIX_ITEMS + j];
      VALUES(v[j] = lv[lid * RADIX_ITEMS + j];)
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

// After sort_block: [start[d], end[d]) is digit d's run in lk, for digits present; the caller has set
// both to 0 for every digit before sort_block's barriers, so absent digits read as empty runs. Ends with
// a barrier.
INLINE void find_runs(local const ukey_t* lk, uint valid, uint shift, local uint* start, local uint* end) {
  const uint lid = get_local_id(0);
#pragma unroll
  for (uint j = 0; j < RADIX_ITEMS; ++j) {
    const uint p = lid + j * RADIX_WG;
    if (p < valid) {
      const uint d = digit_of(lk[p], shift);
      if (p == 0 || digit_of(lk[p - 1], shift) != d) start[d] = p;
      if (p + 1 == valid || digit_of(lk[p + 1], shift) != d) end[d] = p + 1;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}
#endif  // RADIX_MATCH

// lk holds a block sorted by digit, and a key of digit d at block position p goes to gofs[d] + p: each
// digit's keys go to consecutive global positions. dest[j] receives the place of the key at block
// position lid + j * RADIX_WG, for its value.
INLINE void store_keys(local const ukey_t* lk, uint valid, uint shift, uint decode, uint kind,
                       uint descending, local const uint* gofs, global ukey_t* dst, uint* dest) {
  const uint lid = get_local_id(0);
#pragma unroll
  for (uint j = 0; j < RADIX_ITEMS; ++j) {
    const uint p = lid + j * RADIX_WG;
    if (p < valid) {
      const ukey_t key = lk[p];
      dest[j] = gofs[digit_of(key, shift)] + p;
      dst[dest[j]] = decode ? decode_key(key, kind, descending) : key;
    }
  }
}

#if VALUE_BYTES != 0
// The values in lv, in the block's digit order like the keys store_keys wrote, to their keys' places.
INLINE void store_values(local const value_t* lv, const uint* dest, uint valid, global value_t* vdst) {
  const uint lid = get_local_id(0);
#pragma unroll
  for (uint j = 0; j < RADIX_ITEMS; ++j)
    if (lid + j * RADIX_WG < valid) vdst[dest[j]] = lv[lid + j * RADIX_WG];
}
#endif

// ---- Reduce-then-scan: per pass radix_histogram, radix_scan and radix_scatter. Needs nothing of the
// device beyond barriers: the portable path, and the fallback wherever Onesweep is off.

// counts[d * groups + g] = number of keys with digit d in group g's range.
kernel __attribute__((reqd_work_group_size(RADIX_WG, 1, 1))) void radix_histogram(
    global const ukey_t* src, uint n, uint shift, uint encode, uint kind, uint descending,
    uint blocks_per_group, global uint* counts) {
  local uint hist[RADIX];
  const uint lid = get_local_id(0);
  for (uint d = lid; d < RADIX; d += RADIX_WG) hist[d] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint2 range = group_range(n, blocks_per_group);
#ifdef RADIX_MATCH
  // One load and its atomic per iteration keep too few loads in flight (about 1.3 TB/s on the H100):
  // issue HIST_LOADS loads before the atomics. The loop stops before base could wrap near n = 2^32.
  for (uint base = range.x; base < range.y; base += HIST_LOADS * RADIX_WG) {
    const uint left = range.y - base;
    ukey_t k[HIST_LOADS];
#pragma unroll
    for (uint h = 0; h < HIST_LOADS; ++h) {
      const uint i = h * RADIX_WG + lid;
      k[h] = i < left ? src[base + i] : 0;
    }
#pragma unroll
    for (uint h = 0; h < HIST_LOADS; ++h)
      if (h * RADIX_WG + lid < left)
        atomic_inc(&hist[digit_of(encode ? encode_key(k[h], kind, descending) : k[h], shift)]);
    if (left <= HIST_LOADS * RADIX_WG) break;
  }
#else
  for (uint i = range.x + lid; i < range.y; i += RADIX_WG) {
    ukey_t k = src[i];
    if (encode) k = encode_key(k, kind, descending);
    atomic_inc(&hist[digit_of(k, shift)]);
  }
#endif
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint groups = get_num_groups(0);
  for (uint d = lid; d < RADIX; d += RADIX_WG) counts[d * groups + get_group_id(0)] = hist[d];
}

// One work-group per digit: turns counts[d][*] into exclusive prefix sums; totals[d] = digit total.
kernel __attribute__((reqd_work_group_size(RADIX_WG, 1, 1))) void radix_scan(global uint* counts, uint groups,
                                                                             global uint* totals) {
  local uint s[RADIX_WG];
  global uint* row = counts + get_group_id(0) * groups;
  const uint lid = get_local_id(0);
  uint carry = 0;
  for (uint base = 0; base < groups; base += RADIX_WG) {
    const uint i = base + lid;
    const uint v = i < groups ? row[i] : 0;
    uint total;
    const uint ex = group_scan_exclusive(v, s, &total);
    if (i < groups) row[i] = carry + ex;
    carry += total;
  }
  if (lid == 0) totals[get_group_id(0)] = carry;
}

// Each group scatters its range block by block: a key's stable position is the keys of smaller digits
// (totals, scanned here) + its digit's keys in earlier groups (counts, scanned by radix_scan) + its
// digit's keys earlier in this group (the blocks before, and its place in its block's digit order).
kernel __attribute__((reqd_work_group_size(RADIX_WG, 1, 1))) void radix_scatter(
    global const ukey_t* src, global ukey_t* dst,
    VALUES(global const value_t* vsrc, global value_t* vdst, ) uint n, uint shift, uint encode, uint decode,
    uint kind, uint descending, uint blocks_per_group, global const uint* counts, global const uint* totals) {
  local uint gofs[RADIX];  // global position of a key of digit d at block position p: gofs[d] + p
  RANK_LOCALS;
  const uint lid = get_local_id(0);
  const uint groups = get_num_groups(0);
  const uint2 range = group_range(n, blocks_per_group);
#ifdef RADIX_MATCH
  const uint lane = ptx_lane_id(), warp = lid / 32;
  // Work-item lid owns digit lid: where this group's next key of that digit goes.
  uint next = warp_group_scan_exclusive(lid < RADIX ? totals[lid] : 0, lane, warp, warp_tot);
  if (lid < RADIX) next += counts[lid * groups + get_group_id(0)];
  for (uint blk = range.x; blk < range.y; blk += RADIX_BLOCK) {
    const uint valid = min((uint)RADIX_BLOCK, range.y - blk);
    ukey_t k[RADIX_ITEMS];
    uint to[RADIX_ITEMS], dest[RADIX_ITEMS], count, start;
    count_block(src, blk, valid, shift, encode, kind, descending, k, wcount, wmask, warp_tot, &count, &start);
    if (lid < RADIX) {
      gofs[lid] = next - start;
      next += count;
    }
    rank_keys(k, shift, wcount, wmask, to);
    VALUES(value_t v[RADIX_ITEMS]; load_values(vsrc, blk, valid, v);)
#pragma unroll
    for (uint j = 0; j < RADIX_ITEMS; ++j) lk[to[j]] = k[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    store_keys(lk, valid, shift, decode, kind, descending, gofs, dst, dest);
    VALUES(exchange_values(v, to, lv); store_values(lv, dest, valid, vdst);)
    barrier(CLK_LOCAL_MEM_FENCE);  // the next block's counters share the tile's words
  }
#else
  local ukey_t lk[RADIX_BLOCK];
  VALUES(local value_t lv[RADIX_BLOCK];)
  local uint next[RADIX];  // where this group's next key of each digit goes
  local uint start[RADIX], end[RADIX];
  local uint s[RADIX_WG];
  uint carry = 0;
  for (uint b = 0; b < RADIX; b += RADIX_WG) {
    const uint d = b + lid;
    uint total;
    const uint ex = group_scan_exclusive(d < RADIX ? totals[d] : 0, s, &total);
    if (d < RADIX) next[d] = carry + ex + counts[d * groups + get_group_id(0)];
    carry += total;
  }
  for (uint blk = range.x; blk < range.y; blk += RADIX_BLOCK) {
    const uint valid = min((uint)RADIX_BLOCK, range.y - blk);
    for (uint d = lid; d < RADIX; d += RADIX_WG) start[d] = end[d] = 0;
    sort_block(src, VALUES(vsrc, ) blk, valid, shift, encode, kind, descending, lk, VALUES(lv, ) ls,
               seg_total);
    find_runs(lk, valid, shift, start, end);
    for (uint d = lid; d < RADIX; d += RADIX_WG) {
      gofs[d] = next[d] - start[d];
      next[d] += end[d] - start[d];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    uint dest[RADIX_ITEMS];
    store_keys(lk, valid, shift, decode, kind, descending, gofs, dst, dest);
    VALUES(store_values(lv, dest, valid, vdst);)
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#endif
}

// ---- Onesweep (tuning radix.onesweep=1; Adinets & Merrill 2022): one histogram kernel reads the keys
// once for every pass's digit counts, then one kernel per pass in which each work-group ranks one tile
// and finds its global offsets by decoupled look-back over the tiles before it: 36 instead of 48 bytes
// per u32 key, and one launch per pass instead of three. The look-back waits for earlier tiles, so it
// needs them to make progress: tiles are numbered in the order work-groups start (an atomic counter),
// so every tile a group waits for belongs to a group already running. The driver enables it only where
// the tuning table says so and a self-test passed. Still, a group may be descheduled mid-tile (another
// context's work, a debugger), so the wait is bounded: past spin_limit reads, the waiting work-item counts
// the digit in that tile's keys itself (the pass's input, complete since the previous launch) and walks
// on, raising the timeout flag that the self-test reads. Slow, never wrong.
//
// state (from word state_at of the work buffer): the histogram (PASSES x RADIX counts over all keys),
// each pass's tile counter, the timeout flag, and the first key (encoded), which tells which passes have
// the same digit for every key. The buffer holds two copies of it, used by alternate sorts: a sort's
// histogram kernel zeroes the other copy for the next sort, so only a sort that finds no zeroed copy
// needs the clearing launch (a launch costs the host 6-13 us on NVIDIA's OpenCL, against a 2^16-key sort
// of about 60). status (from word status_at): two look-back arrays (tiles x RADIX words each) used by
// alternate passes; a pass clears the other's for the next one, and the histogram kernel the first.
#define PASSES ((KEY_BITS + RADIX_BITS - 1) / RADIX_BITS)
#define OS_COUNTERS (PASSES * RADIX)
#define OS_TIMEOUT (OS_COUNTERS + PASSES)
#define OS_KEY0 (OS_TIMEOUT + 1)  // two words
#define OS_AGGREGATE 0x40000000u  // the tile's own count of the digit
#define OS_PREFIX 0x80000000u     // the count over this and every earlier tile
#define OS_COUNT 0x3FFFFFFFu      // hence n < 2^30
#define OS_LOADS 4                // keys each work-item of the histogram loads before counting them

#ifdef RADIX_MATCH
// NVIDIA: volatile loads go to L2, where the atomics that publish are performed; no read-modify-write
// traffic on the words being waited for.
INLINE uint status_load(global uint* p) {
  return *(volatile global uint*)p;
}
// A tile's owner stores zeroes over its row, which is zero already (the launch before cleared it) and which
// no other work-group writes, so no look-back can read a different value. It is for the cache: whole-sector
// stores bring the row into L2 without reading memory, where the atomics that publish would each wait for
// a DRAM read once the rows outgrow L2 (H100, Gkeys/s: u32 2^28 45.3 -> 46.6, u64 2^24 14.2 -> 14.7 and
// 2^28 15.6 -> 16.3, pairs level). NVIDIA only: the portable path's loads are atomic writes too, with
// which a plain store races.
INLINE void status_own_row(global uint* row) {
  for (uint d = get_local_id(0); d < RADIX; d += RADIX_WG) row[d] = 0;
}
#else
// OpenCL 1.2 promises nothing for plain loads racing with atomics, so the portable path reads atomically.
INLINE uint status_load(global uint* p) {
  return atomic_or((volatile global uint*)p, 0u);
}
INLINE void status_own_row(global uint* row) {}
#endif
INLINE void status_store(global uint* p, uint v) {
  atomic_xchg((volatile global uint*)p, v);
}

// Publishes tile t's count of digit d: as its inclusive prefix outright for the first tile. Published
// before the tile's local scatter, so later tiles find it sooner.
INLINE void publish_count(global uint* status, uint t, uint d, uint count) {
  status_store(status + (size_t)t * RADIX + d, (t == 0 ? OS_PREFIX : OS_AGGREGATE) | count);
}

// 1 (set by the host; see radix.cpp for where): a work-group sorts tiles until none is left, loading the
// next tile's keys as soon as this one's are in local memory, so that the loads overlap this tile's
// look-back and scatter rather than open a new work-group's tile with nothing to hide them. It pays where
// each work-group gets several tiles but the keys still fit L2 (u32 2^24, Gkeys/s, without and with it in
// one command: H200 41.2-41.3 -> 43.5-43.6, H100 39.2 -> 41.1); at 2^28 it was level on the H200 and 6%
// slower on the H100 (a variant that claimed the next tile as a tile started). For 4-byte
// keys alone: values and 64-bit keys need the registers the next keys would take (pairs 128 -> 199-244
// registers, 64-bit keys 100 bytes of spill under their cap of 80, both 15-25% slower).
#ifndef RADIX_PREFETCH
#define RADIX_PREFETCH 0
#endif

// Predecessors' words read at once by the look-back: a walk over several tiles that have published only
// their counts costs one memory latency per window instead of one per tile.
#define OS_WINDOW 4

// Bit q: pass q moves nothing, its digit being the same for every key (the histogram at the first key's
// digit holds n); except that with an odd number of such passes the first one copies instead, so that the
// moving passes are even and the last writes to the caller's buffer. With an odd PASSES none is skipped.
INLINE ulong passes_skipped(global const uint* state, uint n) {
  ulong same = 0;
#if PASSES % 2 == 0
  ukey_t k0 = state[OS_KEY0];
#if KEY_BITS == 64
  k0 |= (ulong)state[OS_KEY0 + 1] << 32;
#endif
  for (uint q = 0; q < PASSES; ++q)
    if (state[q * RADIX + digit_of(k0, q * RADIX_BITS)] == n) same |= 1UL << q;
  if ((PASSES - popcount(same)) % 2) same &= same - 1;
#endif
  return same;
}

// Keys of digit d in tile j of pass `pass`, from the keys themselves: what a look-back uses for a tile
// whose count it waited for in vain. Works out the pass's input again from the kernel's arguments rather
// than taking it from the caller, whose registers are tight (the u32 pass kernel spilled, 3% slower).
INLINE uint recount(global const ukey_t* a, global const ukey_t* b, global const uint* state, uint n,
                    uint pass, uint kind, uint descending, uint j, uint d) {
  const ulong moving_before = ~passes_skipped(state, n) & ((1UL << pass) - 1);
  global const ukey_t* src = popcount(moving_before) & 1 ? b : a;
  const uint begin = j * RADIX_BLOCK, end = min(begin + RADIX_BLOCK, n);
  uint count = 0;
  for (uint i = begin; i < end; ++i) {
    const ukey_t k = moving_before == 0 ? encode_key(src[i], kind, descending) : src[i];
    count += digit_of(k, pass * RADIX_BITS) == d;
  }
  return count;
}

// Digit d of tile t (count already published): sums the counts of earlier tiles back to the first
// inclusive prefix, publishes its own inclusive prefix, and returns the keys of d in earlier tiles. A
// spin_limit of 0 reads no earlier tile's word and recounts every one (the tests' way to reach recount).
INLINE uint look_back(global uint* status, uint t, uint d, uint count, global uint* state, uint spin_limit,
                      global const ukey_t* a, global const ukey_t* b, uint n, uint pass, uint kind,
                      uint descending) {
  if (t == 0) return 0;
  uint before = 0;
  uint stuck = spin_limit ? 0 : t;  // 1 + the tile whose word did not come
  bool done = stuck != 0;
  for (uint j = t; !done; j -= OS_WINDOW) {  // tiles below j are left to read; tile 0 ends every walk
    uint w[OS_WINDOW];
#pragma unroll
    for (uint k = 0; k < OS_WINDOW; ++k)
      w[k] = j > k ? status_load(status + (size_t)(j - 1 - k) * RADIX + d) : 0;
    for (uint k = 0; k < OS_WINDOW; ++k) {  // exits early: no unroll pragma (PoCL warns it cannot)
      if (done) break;
      global uint* at = status + (size_t)(j - 1 - k) * RADIX + d;
      uint v = w[k];
      for (uint spins = 0; v == 0 && spins < spin_limit; ++spins) v = status_load(at);
      if (v == 0) {
        stuck = j - k;
        done = true;
        break;
      }
      before += v & OS_COUNT;
      done = (v & OS_PREFIX) != 0;
    }
  }
  if (stuck) {
    atomic_or(&state[OS_TIMEOUT], 1u);
    for (uint tile = stuck; tile-- > 0;) {
      const uint v = spin_limit ? status_load(status + (size_t)tile * RADIX + d) : 0;
      before += v ? v & OS_COUNT : recount(a, b, state, n, pass, kind, descending, tile, d);
      if (v & OS_PREFIX) break;
    }
  }
  status_store(status + (size_t)t * RADIX + d, OS_PREFIX | (before + count));
  return before;
}

// Zeroes a copy of the state before a sort that finds none zeroed. A kernel rather than
// clEnqueueFillBuffer, whose zeroes Oclgrind does not count as initialized.
kernel void radix_onesweep_clear(global uint* words, uint count) {
  for (uint i = get_global_id(0); i < count; i += get_global_size(0)) words[i] = 0;
}

// Counts every pass's digits in one read of the keys, into the state at state_at. Also notes the first
// key, and zeroes the other copy of the state (state_words from other_at) for the next sort and the first
// pass's look-back words (status_words from status_at).
kernel __attribute__((reqd_work_group_size(RADIX_WG, 1, 1))) void radix_onesweep_histogram(
    global const ukey_t* src, uint n, uint kind, uint descending, global uint* work, uint state_at,
    uint other_at, uint state_words, uint status_at, uint status_words) {
  local uint hist[PASSES * RADIX];
  const uint lid = get_local_id(0);
  for (uint i = get_global_id(0); i < state_words; i += get_global_size(0)) work[other_at + i] = 0;
  for (uint i = get_global_id(0); i < status_words; i += get_global_size(0)) work[status_at + i] = 0;
  global uint* state = work + state_at;
  for (uint i = lid; i < PASSES * RADIX; i += RADIX_WG) hist[i] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  // Contiguous ranges of whole strides, OS_LOADS loads in flight before their atomics.
  const uint stride = OS_LOADS * RADIX_WG;
  const uint strides = (n + stride - 1) / stride;
  const uint per_group = (strides + (uint)get_num_groups(0) - 1) / (uint)get_num_groups(0);
  const uint begin = min((uint)get_group_id(0) * per_group, strides) * stride;
  const uint end = min(begin + per_group * stride, n);
  for (uint base = begin; base < end; base += stride) {
    ukey_t k[OS_LOADS];
#pragma unroll
    for (uint h = 0; h < OS_LOADS; ++h) {
      const uint i = base + h * RADIX_WG + lid;
      k[h] = i < end ? src[i] : 0;
    }
#pragma unroll
    for (uint h = 0; h < OS_LOADS; ++h)
      if (base + h * RADIX_WG + lid < end) {
        const ukey_t key = encode_key(k[h], kind, descending);  // after every load went out (load_keys)
        for (uint q = 0; q < PASSES; ++q) atomic_inc(&hist[q * RADIX + digit_of(key, q * RADIX_BITS)]);
      }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint i = lid; i < PASSES * RADIX; i += RADIX_WG)
    if (hist[i]) atomic_add(&state[i], hist[i]);
  if (get_global_id(0) == 0) {
    const ukey_t k0 = encode_key(src[0], kind, descending);
    state[OS_KEY0] = (uint)k0;
#if KEY_BITS == 64
    state[OS_KEY0 + 1] = (uint)(k0 >> 32);
#endif
  }
}

// Pass `pass` over the keys, which alternate between a (the caller's buffer) and b (scratch). A pass
// whose digit is the same for every key moves nothing and is skipped, unless it must copy so that the
// last moving pass writes to a (an even number of moves); with an odd PASSES nothing is skipped and the
// driver copies the result back. Work-groups take tiles in the order they start (see above).
kernel __attribute__((reqd_work_group_size(RADIX_WG, 1, 1))) void radix_onesweep(
    global ukey_t* a, global ukey_t* b, VALUES(global value_t* va, global value_t* vb, ) uint n, uint pass,
    uint kind, uint descending, global uint* work, uint state_at, uint status_at, uint tiles,
    uint spin_limit) {
  local uint gofs[RADIX];
  local uint tile;
  RANK_LOCALS;
  const uint lid = get_local_id(0);

  global uint* state = work + state_at;
  global uint* status = work + status_at;
  global uint* next_status = status + (size_t)((pass + 1) & 1) * tiles * RADIX;
  // Written out like status_own_row's loop: one helper for both cost the u32 pass 2% at 2^24 (H100,
  // 38.4-38.5 against 39.3-39.4 Gkeys/s), the 64-register kernel being sensitive to small code changes.
  for (uint d = lid; d < RADIX; d += RADIX_WG) next_status[(size_t)get_group_id(0) * RADIX + d] = 0;
  global uint* my_status = status + (size_t)(pass & 1) * tiles * RADIX;

  const ulong same = passes_skipped(state, n);
  if (same >> pass & 1) return;  // the same for the whole group: no barrier is left unmet
  const ulong moving_before = ~same & ((1UL << pass) - 1);
  const ulong moving_after = ~same & ~((2UL << pass) - 1) & (((1UL << (PASSES - 1)) << 1) - 1);
  const uint flip = popcount(moving_before) & 1;
  global const ukey_t* src = flip ? b : a;
  global ukey_t* dst = flip ? a : b;
  VALUES(global const value_t* vsrc = flip ? vb : va; global value_t* vdst = flip ? va : vb;)
  const uint encode = moving_before == 0, decode = moving_after == 0;
  const uint shift = pass * RADIX_BITS;

  if (lid == 0) tile = atomic_inc(&state[OS_COUNTERS + pass]);
  barrier(CLK_LOCAL_MEM_FENCE);
  global const uint* hist = state + pass * RADIX;
#ifdef RADIX_MATCH
  uint t = tile;
  if (RADIX_PREFETCH && t >= tiles) return;  // the same for the whole group
  status_own_row(my_status + (size_t)t * RADIX);
  const uint lane = ptx_lane_id(), warp = lid / 32;
  // Work-item d owns digit d: keys of smaller digits.
  const uint smaller = warp_group_scan_exclusive(lid < RADIX ? hist[lid] : 0, lane, warp, warp_tot);
  ukey_t k[RADIX_ITEMS];
  load_keys(src, t * RADIX_BLOCK, min((uint)RADIX_BLOCK, n - t * RADIX_BLOCK), k);
  for (;;) {  // once, unless RADIX_PREFETCH
    const uint blk = t * RADIX_BLOCK;
    const uint valid = min((uint)RADIX_BLOCK, n - blk);
    uint to[RADIX_ITEMS], dest[RADIX_ITEMS], count, start;
    count_keys(valid, shift, encode, kind, descending, k, wcount, wmask, warp_tot, &count, &start);
    // The next tile is claimed here rather than as this one began: a claimed tile's counts are what later
    // tiles' look-backs wait for, and this way they come out one ranking after the claim, not a tile.
    if (RADIX_PREFETCH && lid == 0) tile = atomic_inc(&state[OS_COUNTERS + pass]);
    if (lid < RADIX) publish_count(my_status, t, lid, count);
    rank_keys(k, shift, wcount, wmask, to);
    const uint next = RADIX_PREFETCH ? tile : tiles;
    VALUES(value_t v[RADIX_ITEMS]; if (VALUES_EARLY) load_values(vsrc, blk, valid, v);)
#pragma unroll
    for (uint j = 0; j < RADIX_ITEMS; ++j) lk[to[j]] = k[j];
    if (next < tiles) load_keys(src, next * RADIX_BLOCK, min((uint)RADIX_BLOCK, n - next * RADIX_BLOCK), k);
    if (lid < RADIX)
      gofs[lid] = smaller +
                  look_back(my_status, t, lid, count, state, spin_limit, a, b, n, pass, kind, descending) -
                  start;
    barrier(CLK_LOCAL_MEM_FENCE);
    store_keys(lk, valid, shift, decode, kind, descending, gofs, dst, dest);
    VALUES(if (!VALUES_EARLY) load_values(vsrc, blk, valid, v); exchange_values(v, to, lv);
           store_values(lv, dest, valid, vdst);)
    if (next >= tiles) break;
    barrier(CLK_LOCAL_MEM_FENCE);  // the next tile's counters reuse lk's words, and its offsets gofs
    t = next;
    status_own_row(my_status + (size_t)t * RADIX);
  }
#else
  const uint t = tile;
  status_own_row(my_status + (size_t)t * RADIX);
  const uint blk = t * RADIX_BLOCK;
  const uint valid = min((uint)RADIX_BLOCK, n - blk);
  local ukey_t lk[RADIX_BLOCK];
  VALUES(local value_t lv[RADIX_BLOCK];)
  local uint start[RADIX], end[RADIX];
  local uint s[RADIX_WG];
  for (uint d = lid; d < RADIX; d += RADIX_WG) start[d] = end[d] = 0;
  sort_block(src, VALUES(vsrc, ) blk, valid, shift, encode, kind, descending, lk, VALUES(lv, ) ls, seg_total);
  find_runs(lk, valid, shift, start, end);
  for (uint d = lid; d < RADIX; d += RADIX_WG) publish_count(my_status, t, d, end[d] - start[d]);
  uint carry = 0;
  for (uint c = 0; c < RADIX; c += RADIX_WG) {
    const uint d = c + lid;
    uint total;
    const uint smaller = carry + group_scan_exclusive(d < RADIX ? hist[d] : 0, s, &total);
    carry += total;
    if (d < RADIX)
      gofs[d] =
          smaller +
          look_back(my_status, t, d, end[d] - start[d], state, spin_limit, a, b, n, pass, kind, descending) -
          start[d];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  uint dest[RADIX_ITEMS];
  store_keys(lk, valid, shift, decode, kind, descending, gofs, dst, dest);
  VALUES(store_values(lv, dest, valid, vdst);)
#endif
}

#endif  // !RADIX_CPU

#if RADIX_CPU
// ---- CPU shape (tuning radix.cpu=1): on CPU devices each work-group is one core's loop over its
// work-items and barriers cost a pass over them, so work-groups are single work-items with long serial
// loops. One most-significant-digit pass splits the keys into RADIX buckets (a stable counting sort per
// contiguous chunk, chunks in parallel); then each bucket is sorted by one work-item with LSD passes over
// the remaining bits. A bucket of n / RADIX keys fits a core's cache, so only the MSD pass pays for main
// memory: about 20 bytes per 32-bit key instead of 12 per pass.

// counts[d * chunks + c] = keys with digit d in chunk c.
kernel void radix_cpu_histogram(global const ukey_t* src, uint n, uint shift, uint encode, uint kind,
                                uint descending, uint chunk, global uint* counts) {
  const uint c = get_global_id(0), chunks = get_global_size(0);
  uint hist[RADIX];
  for (uint d = 0; d < RADIX; ++d) hist[d] = 0;
  const uint begin = min((ulong)c * chunk, (ulong)n), end = min((ulong)begin + chunk, (ulong)n);
  for (uint i = begin; i < end; ++i) {
    ukey_t k = src[i];
    if (encode) k = encode_key(k, kind, descending);
    ++hist[digit_of(k, shift)];
  }
  for (uint d = 0; d < RADIX; ++d) counts[d * chunks + c] = hist[d];
}

// Each chunk's first position per digit is the keys of smaller digits plus the keys of its digit in
// earlier chunks; with few chunks every work-item sums that itself, so no separate scan is needed.
kernel void radix_cpu_scatter(global const ukey_t* src, global ukey_t* dst,
#if VALUE_BYTES != 0
                              global const value_t* vsrc, global value_t* vdst,
#endif
                              uint n, uint shift, uint encode, uint decode, uint kind, uint descending,
                              uint chunk, global const uint* counts, global uint* starts) {
  const uint c = get_global_id(0), chunks = get_global_size(0);
  uint next[RADIX];
  uint base = 0;
  for (uint d = 0; d < RADIX; ++d) {
    uint before = 0, total = 0;
    for (uint o = 0; o < chunks; ++o) {
      const uint v = counts[d * chunks + o];
      total += v;
      before += o < c ? v : 0;
    }
    next[d] = base + before;
    if (c == 0) starts[d] = base;  // where each bucket begins, for radix_cpu_buckets
    base += total;
  }
  if (c == 0) starts[RADIX] = base;
  const uint begin = min((ulong)c * chunk, (ulong)n), end = min((ulong)begin + chunk, (ulong)n);
  for (uint i = begin; i < end; ++i) {
    ukey_t k = src[i];
    if (encode) k = encode_key(k, kind, descending);
    const uint to = next[digit_of(k, shift)]++;
    dst[to] = decode ? decode_key(k, kind, descending) : k;
#if VALUE_BYTES != 0
    vdst[to] = vsrc[i];
#endif
  }
}

// Buckets of at most this many keys are sorted by insertion: the LSD passes' per-pass histogram work
// (2 * RADIX steps) would outweigh a few dozen keys.
#ifndef RADIX_CPU_SMALL
#define RADIX_CPU_SMALL 64
#endif
// The most significant digit's shift and the LSD passes below it: constants, so that the per-key loops
// over passes unroll.
#define RADIX_CPU_SHIFT (KEY_BITS - RADIX_BITS)
#define RADIX_CPU_PASSES ((KEY_BITS - 1) / RADIX_BITS)

// Work-item b sorts bucket b, which the MSD pass left encoded in `tmp` at [starts[b], starts[b + 1]),
// by the bits below RADIX_CPU_SHIFT (least significant digit first, stable), and leaves it decoded in `keys`.
// A pass whose digit is the same for the whole bucket moves nothing and is skipped, so equal and
// few-unique keys cost little.
kernel void radix_cpu_buckets(global ukey_t* keys, global ukey_t* tmp,
#if VALUE_BYTES != 0
                              global value_t* values, global value_t* vtmp,
#endif
                              uint kind, uint descending, global const uint* starts) {
  const uint b = get_global_id(0);
  const uint begin = starts[b], size = starts[b + 1] - begin;
  global ukey_t* from = tmp + begin;
  global ukey_t* out = keys + begin;
#if VALUE_BYTES != 0
  global value_t* vfrom = vtmp + begin;
  global value_t* vout = values + begin;
#endif
  if (size <= RADIX_CPU_SMALL) {
    // Stable: a key moves only past strictly greater ones.
    for (uint i = 0; i < size; ++i) {
      const ukey_t k = from[i];
#if VALUE_BYTES != 0
      const value_t v = vfrom[i];
#endif
      uint j = i;
      for (; j > 0 && out[j - 1] > k; --j) {
        out[j] = out[j - 1];
#if VALUE_BYTES != 0
        vout[j] = vout[j - 1];
#endif
      }
      out[j] = k;
#if VALUE_BYTES != 0
      vout[j] = v;
#endif
    }
    for (uint i = 0; i < size; ++i) out[i] = decode_key(out[i], kind, descending);
    return;
  }
  // Every pass's histogram in one read of the bucket; a pass whose digit is constant moves nothing.
  // A digit reaching past RADIX_CPU_SHIFT takes MSD bits too, which are the same throughout the bucket.
  uint hist[RADIX_CPU_PASSES][RADIX];
  for (uint p = 0; p < RADIX_CPU_PASSES; ++p)
    for (uint d = 0; d < RADIX; ++d) hist[p][d] = 0;
  for (uint i = 0; i < size; ++i) {
    const ukey_t k = from[i];
    for (uint p = 0, s = 0; s < RADIX_CPU_SHIFT; ++p, s += RADIX_BITS) ++hist[p][digit_of(k, s)];
  }
  ulong active = 0;  // bit p: pass p moves keys
  uint last = 0;
  for (uint p = 0, s = 0; s < RADIX_CPU_SHIFT; ++p, s += RADIX_BITS) {
    uint sum = 0, single = 0;
    for (uint d = 0; d < RADIX; ++d) {
      const uint h = hist[p][d];
      single |= h == size;
      hist[p][d] = sum;
      sum += h;
    }
    if (!single) {
      active |= 1UL << p;
      last = p;
    }
  }
  // Passes alternate tmp -> keys -> tmp ...: an odd number of moving passes ends in `keys`, decoded by
  // the last; an even number (or none) ends in `tmp`, copied back decoded.
  global ukey_t* to = out;
#if VALUE_BYTES != 0
  global value_t* vto = vout;
#endif
  const uint moves = (uint)popcount(active);
  for (uint p = 0, s = 0; s < RADIX_CPU_SHIFT; ++p, s += RADIX_BITS) {
    if (!(active >> p & 1UL)) continue;
    const uint dec = p == last && moves % 2 == 1;
    for (uint i = 0; i < size; ++i) {
      const ukey_t k = from[i];
      const uint at = hist[p][digit_of(k, s)]++;
      to[at] = dec ? decode_key(k, kind, descending) : k;
#if VALUE_BYTES != 0
      vto[at] = vfrom[i];
#endif
    }
    global ukey_t* t = from;
    from = to;
    to = t;
#if VALUE_BYTES != 0
    global value_t* vt = vfrom;
    vfrom = vto;
    vto = vt;
#endif
  }
  if (moves % 2 == 0) {
    for (uint i = 0; i < size; ++i) out[i] = decode_key(from[i], kind, descending);
#if VALUE_BYTES != 0
    for (uint i = 0; i < size; ++i) vout[i] = vfrom[i];
#endif
  }
}
#endif  // RADIX_CPU
