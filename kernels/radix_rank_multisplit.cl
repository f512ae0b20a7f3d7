// Radix ranking by sub-group multisplit (tuning radix.match=1), the ranking every fast GPU radix sort
// uses: for each key, the lanes of its sub-group holding the same digit find each other (a peer mask),
// and take consecutive places in input order. Written once over a few sub-group primitives that the file
// before this one provides (the plan picks it from what the device reports, never from its vendor):
//   radix_sg_ptx.cl    NVIDIA: warps of 32 through inline PTX (%laneid, shfl, bar.warp.sync, vote.ballot)
//   radix_sg_khr.cl    cl_khr_subgroup_ballot with a required sub-group size (4..64 lanes)
//   radix_sg_local.cl  any OpenCL 1.2 device: groups of 8..32 consecutive work-items, synchronised by
//                      work-group barriers, peers found through local memory
// Each provides SG_LANES, SG_KERNEL_ATTRS, sgmask_t, sg_lane(), sg_index(), sg_lanes_below(), sg_sync()
// (orders the sub-group's local memory accesses; every work-item of the group calls it the same number
// of times), rank_scan_exclusive() and, where the device has one, sg_ballot() (SG_HAS_BALLOT).
//
// Each sub-group counts its keys' digits into its own counters (local atomics), a block scan turns the
// counts into where each (digit, sub-group) run starts, and each sub-group then ranks its keys one item
// at a time. Counting first (CUB's "early counts") lets Onesweep publish a tile's counts before the
// ranking. Follows radix_common.cl and a sub-group file.
#if RADIX_WG % SG_LANES != 0
#error "the multisplit ranking needs a work-group of whole sub-groups"
#endif
#if RADIX > RADIX_WG
#error "the multisplit ranking needs a work-item per digit (RADIX <= RADIX_WG)"
#endif
#define SG_COUNT (RADIX_WG / SG_LANES)
#define SG_ITEMS (SG_LANES * RADIX_ITEMS)  // a sub-group's contiguous share of the block
#define HIST_LOADS 8                       // keys each work-item loads before counting them

// How a key finds its peers: 1, SG_PEERS_BALLOT, one ballot per digit bit ANDed together (registers
// only); 0, each lane ORs its bit into the digit's mask word in local memory and reads the word back.
#ifndef RADIX_PEERS_BALLOT
#define RADIX_PEERS_BALLOT 0
#endif
#if RADIX_PEERS_BALLOT && !SG_HAS_BALLOT
#error "RADIX_PEERS_BALLOT needs a sub-group ballot"
#endif
#if SG_LANES > 32 && !RADIX_PEERS_BALLOT
#error "peer masks of more than 32 lanes come from the ballot (local atomics are 32 bits)"
#endif
// Mask words per (sub-group, digit) for the local-memory peers: with 2, item j uses bank j % 2, and the
// word a leader clears is not written again before the next item's sync, which saves one sync per item
// (a work-group barrier where sub-groups are emulated). With 1, a third sync orders the clearing.
#ifndef RADIX_MASK_BANKS
#define RADIX_MASK_BANKS 2
#endif
#define SG_ALL_LANES (~(sgmask_t)0 >> (8 * sizeof(sgmask_t) - SG_LANES))

// The multisplit shape's local memory: the block's keys (then its values) in digit order share words with
// the ranking state, per-sub-group digit counters (after the block scan, where each (digit, sub-group) run
// starts in the block) and per-sub-group peer masks; ranks wait in registers while the block is exchanged.
#define KEY_BYTES (UKEY_BITS / 8)  // narrow keys are 32-bit codes in local memory
#define TILE_BYTES (KEY_BYTES > VALUE_BYTES ? KEY_BYTES : VALUE_BYTES)
#define MASK_WORDS_PER_SG (RADIX_PEERS_BALLOT ? 0 : RADIX_MASK_BANKS * RADIX * (int)(sizeof(sgmask_t) / 4))
#define RANK_WORDS (SG_COUNT * (RADIX + MASK_WORDS_PER_SG))
#define TILE_WORDS (RADIX_BLOCK * TILE_BYTES / 4)
#define MATCH_WORDS (TILE_WORDS > RANK_WORDS ? TILE_WORDS : RANK_WORDS)
// 16-byte values need their words 16-byte aligned.
#if VALUE_BYTES == 16
#define MATCH_MEM local uint4 match_mem[(MATCH_WORDS + 3) / 4]
#else
#define MATCH_MEM local ulong match_mem[(MATCH_WORDS + 1) / 2]
#endif
#define RANK_LOCALS                                                           \
  MATCH_MEM;                                                                  \
  local uint* const wcount = (local uint*)match_mem;                          \
  local sgmask_t* const wmask = (local sgmask_t*)(wcount + SG_COUNT * RADIX); \
  local ukey_t* const lk = (local ukey_t*)match_mem;                          \
  VALUES(local value_t* const lv = (local value_t*)match_mem;)                \
  local uint scan_tmp[RANK_SCAN_WORDS]

// Loads the block [blk, blk + valid) of src sub-group-striped into k: sub-group s holds block positions
// [s * SG_ITEMS, (s + 1) * SG_ITEMS), item j of lane l being position s * SG_ITEMS + SG_LANES j + l.
// Every load is issued before any key is looked at: encoding as each key arrives made the compiler wait
// for each load in turn. A whole block (valid == RADIX_BLOCK, the same for the work-group) loads through
// one pointer at constant offsets with no bounds test: one instruction a key instead of five, in passes
// that are bound by their instructions (docs/design.md, "Which radix ranking runs where"; the padding
// below is skipped for whole blocks too).
INLINE void load_keys(global const gkey_t* src, uint blk, uint valid, ukey_t* k) {
  const uint first = sg_index() * SG_ITEMS + sg_lane();
  global const gkey_t* at = src + blk + first;
  if (valid == RADIX_BLOCK) {
#pragma unroll
    for (uint j = 0; j < RADIX_ITEMS; ++j) k[j] = at[SG_LANES * j];
    return;
  }
#pragma unroll
  for (uint j = 0; j < RADIX_ITEMS; ++j) k[j] = first + SG_LANES * j < valid ? at[SG_LANES * j] : 0;
}

// Counts the digits of the block that load_keys put into k, encoding its keys if asked: wcount then
// holds where each (digit, sub-group) run starts in the block's digit order, and work-item d < RADIX gets
// the number of keys of digit d in the block (*count) and where they start (*start). Slots past the end
// become the largest key: the largest digit and the latest positions, so they rank last. Ends with a
// barrier.
INLINE void count_keys(uint valid, uint shift, uint encode, uint kind, uint descending, ukey_t* k,
                       local uint* wcount, local sgmask_t* wmask, local uint* scan_tmp, uint* count,
                       uint* start) {
  const uint lid = get_local_id(0);
  const uint lane = sg_lane(), sg = sg_index();
  local uint* my_count = wcount + sg * RADIX;
  for (uint d = lane; d < RADIX; d += SG_LANES) my_count[d] = 0;
#if !RADIX_PEERS_BALLOT
  local sgmask_t* my_mask = wmask + sg * RADIX_MASK_BANKS * RADIX;
  for (uint d = lane; d < RADIX_MASK_BANKS * RADIX; d += SG_LANES) my_mask[d] = 0;
#endif
  const uint first = sg * SG_ITEMS + lane;
  if (encode)
#pragma unroll
    for (uint j = 0; j < RADIX_ITEMS; ++j) k[j] = encode_key(k[j], kind, descending);
  if (valid < RADIX_BLOCK)
#pragma unroll
    for (uint j = 0; j < RADIX_ITEMS; ++j)
      if (first + SG_LANES * j >= valid) k[j] = KEY_MAX;
  sg_sync();
#pragma unroll
  for (uint j = 0; j < RADIX_ITEMS; ++j) atomic_inc(&my_count[digit_of(k[j], shift)]);
  barrier(CLK_LOCAL_MEM_FENCE);

  // Block scan over (digit, sub-group) in digit-major order: work-item d sums its digit over the
  // sub-groups, one group scan gives the digit's start in the block, and d writes each run's start back.
  uint total = 0;
  if (lid < RADIX)
    for (uint w = 0; w < SG_COUNT; ++w) total += wcount[w * RADIX + lid];
  *start = rank_scan_exclusive(total, scan_tmp);
  *count = total;
  if (lid < RADIX) {
    uint run = *start;
    for (uint w = 0; w < SG_COUNT; ++w) {
      const uint c = wcount[w * RADIX + lid];
      wcount[w * RADIX + lid] = run;
      run += c;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

INLINE void count_block(global const gkey_t* src, uint blk, uint valid, uint shift, uint encode, uint kind,
                        uint descending, ukey_t* k, local uint* wcount, local sgmask_t* wmask,
                        local uint* scan_tmp, uint* count, uint* start) {
  load_keys(src, blk, valid, k);
  count_keys(valid, shift, encode, kind, descending, k, wcount, wmask, scan_tmp, count, start);
}

#if RADIX_PEERS_BALLOT
// The lanes of this sub-group whose key has digit d: one ballot per digit bit. The bit is tested in place,
// not shifted down: NVIDIA's compiler then turns the digit's bits into predicates with one instruction
// and spends 3 per bit (select, vote, and), where `(d >> b) & 1` cost 5 (shift and test added).
INLINE sgmask_t peers_of(uint d) {
  sgmask_t peers = SG_ALL_LANES;
#pragma unroll
  for (uint b = 0; b < RADIX_BITS; ++b) {
    const uint bit = d & (1u << b);
    const sgmask_t voted = sg_ballot(bit);
    peers &= bit ? voted : ~voted;
  }
  return peers;
}
#endif

// Ranks the keys counted by count_keys: to[j] is item j's place in the block's digit order. Item by item,
// the lanes sharing a digit find their peers; the lowest of them advances the digit's counter by their
// number, and each key's place is the old counter plus its peers in lower lanes. Items in order and lanes
// in order within an item are input order, so the sort stays stable. Only this sub-group touches its
// counters and masks, so sub-group syncs order them. Which peer search is faster depends on the key and
// the device; the NVIDIA rows in host/src/device/tuning.cpp pick (docs/tuning.md has their figures). Ends with a barrier, after which the ranking
// state's words are free for the tile.
INLINE void rank_keys(const ukey_t* k, uint shift, local uint* wcount, local sgmask_t* wmask, uint* to) {
  const uint lane = sg_lane(), sg = sg_index();
  const sgmask_t lanes_before = sg_lanes_below();
  local uint* my_count = wcount + sg * RADIX;
#if !RADIX_PEERS_BALLOT
  local sgmask_t* my_mask = wmask + sg * RADIX_MASK_BANKS * RADIX;
#endif
#pragma unroll
  for (uint j = 0; j < RADIX_ITEMS; ++j) {
    const uint d = digit_of(k[j], shift);
#if RADIX_PEERS_BALLOT
    const sgmask_t peers = peers_of(d);
#else
    local sgmask_t* word = my_mask + (j % RADIX_MASK_BANKS) * RADIX + d;
    atomic_or(word, 1u << lane);
    sg_sync();
    const sgmask_t peers = *word;
#endif
    const sgmask_t lower = peers & lanes_before;
    const uint before = my_count[d];
    sg_sync();
    if (lower == 0) {
      my_count[d] = before + (uint)popcount(peers);
#if !RADIX_PEERS_BALLOT
      *word = 0;
#endif
    }
    // The counter (and a single bank's mask word) must be written before the next item reads them; two
    // banks of masks get that from the next item's first sync.
#if RADIX_PEERS_BALLOT || RADIX_MASK_BANKS == 1
    sg_sync();
#endif
    to[j] = before + (uint)popcount(lower);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

#if VALUE_BYTES != 0
// When the Onesweep pass loads the block's values. Early (before the look-back) hides the loads behind it;
// late (after the keys are stored) keeps the values out of the registers while the keys go to local
// memory, through the look-back and out, which lets 4-byte keys take tiles of 32 without spilling (early
// loads spilled at 28). 8-byte keys fill local memory before registers, and late loads made them slower
// (docs/tuning.md, nvidia/gpu/default/keys32/values).
#define VALUES_EARLY (UKEY_BITS == 64)

// Loads the block's values sub-group-striped, like load_keys' keys (padding defined, never stored).
INLINE void load_values(global const value_t* vsrc, uint blk, uint valid, value_t* v) {
  const uint first = sg_index() * SG_ITEMS + sg_lane();
  global const value_t* at = vsrc + blk + first;
  if (valid == RADIX_BLOCK) {  // as in load_keys
#pragma unroll
    for (uint j = 0; j < RADIX_ITEMS; ++j) v[j] = at[SG_LANES * j];
    return;
  }
#pragma unroll
  for (uint j = 0; j < RADIX_ITEMS; ++j) v[j] = first + SG_LANES * j < valid ? at[SG_LANES * j] : 0;
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
