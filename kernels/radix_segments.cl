// Radix sort of long segments, one work-group per segment (Sorter::sort_segments on GPUs, segments whose
// length lies in (SEG_BIN, segments.radix]; host/src/operations/segments/segments.cpp). Follows a ranking file, like the
// whole-array shapes, so every device ranks the way its radix sort does.
//
// A group owns its segment, so it needs no look-back: per pass it takes the segment's tiles in order and
// sends each tile's keys of digit d after those of the tiles before it. The digit counts a pass starts
// from come from the pass before (each tile counts the next pass's digits of its keys while they sit in
// local memory), or from one read of the segment for the first pass and after a skipped one. Every pass
// encodes the keys it reads and decodes the keys it writes, so whichever buffer a pass writes holds plain
// keys; a pass whose digit is the same for every key of the segment moves nothing, and a segment that
// the last moving pass left in the scratch is copied home. The segments' chunk sorts and merges (kernels/
// segments_local.cl) ran at under half the speed of CUB's DeviceSegmentedSort there, whose block-wide radix
// sort per segment this follows (docs/tuning.md, any/gpu/default). With the multisplit ranking,
// segments of one tile take radix_segment_tiles (below) instead, which keeps the tile in local memory.
//
// list[4 s]: segment s's start in keys (and values), its length, and its place in the compact scratch.

// Counts digit `shift` of the segment's keys (encoding them) into cnt, zeroed by the caller before a
// barrier. Four loads in flight before their atomics.
INLINE void count_segment(global const gkey_t* src, uint len, uint shift, uint kind, uint descending,
                          local uint* cnt) {
  const uint lid = get_local_id(0);
  for (uint base = 0; base < len; base += 4 * RADIX_WG) {
    gkey_t k[4];
#pragma unroll
    for (uint h = 0; h < 4; ++h) {
      const uint i = base + h * RADIX_WG + lid;
      k[h] = i < len ? src[i] : 0;
    }
#pragma unroll
    for (uint h = 0; h < 4; ++h)
      if (base + h * RADIX_WG + lid < len)
        atomic_inc(&cnt[digit_of(encode_key(k[h], kind, descending), shift)]);
  }
}

kernel __attribute__((reqd_work_group_size(RADIX_WG, 1, 1))) SG_KERNEL_ATTRS void radix_segments(
    global gkey_t* keys, global gkey_t* tmp,
    VALUES(global value_t* values, global value_t* vtmp, ) global const uint* list, uint kind,
    uint descending) {
  local uint cnt[2][RADIX];  // cnt[q & 1]: pass q's digit counts; the other, pass q + 1's as they come
  local uint next[RADIX];    // where digit d's next key goes in the segment
  local uint gofs[RADIX];    // for the tile in local memory: next[d] - the digit's start in the tile
#ifdef RADIX_MATCH
  RANK_LOCALS;
#else
  local ukey_t lk[RADIX_BLOCK];
  VALUES(local value_t lv[RADIX_BLOCK];)
  local uint start[RADIX], end[RADIX];
  local uint s[RADIX_WG];
  RANK_LOCALS;
#endif
  const uint lid = get_local_id(0);
  global const uint* e = list + 4 * (size_t)get_group_id(0);
  const uint len = e[1];
  global gkey_t* home = keys + e[0];
  global gkey_t* away = tmp + e[2];
  VALUES(global value_t* vhome = values + e[0]; global value_t* vaway = vtmp + e[2];)
  uint flip = 0;         // 1: the keys sit in the scratch
  bool counted = false;  // cnt[pass & 1] holds this pass's counts
  for (uint pass = 0; pass < PASSES; ++pass) {
    const uint shift = RADIX_PASS_SHIFT(pass);
    local uint* counts = cnt[pass & 1];
    local uint* later = cnt[(pass + 1) & 1];
    global const gkey_t* src = flip ? away : home;
    global gkey_t* dst = flip ? home : away;
    VALUES(global const value_t* vsrc = flip ? vaway : vhome; global value_t* vdst = flip ? vhome : vaway;)
    // The last pass's readers of both counters are done, and its stores to the buffer this pass reads
    // are seen by every work-item of the group.
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    for (uint d = lid; d < RADIX; d += RADIX_WG) {
      if (!counted) counts[d] = 0;
      later[d] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!counted) {
      count_segment(src, len, shift, kind, descending, counts);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    // The same for the whole group, read from local memory after a barrier: no barrier is left unmet.
    if (counts[digit_of(encode_key(src[0], kind, descending), shift)] == len) {
      counted = false;
      continue;
    }
    counted = true;
    const bool count_later = pass + 1 < PASSES;
    const uint after = count_later ? RADIX_PASS_SHIFT(pass + 1) : shift;
    // next[d]: the keys of smaller digits
#ifdef RADIX_MATCH
    const uint smaller = rank_scan_exclusive(lid < RADIX ? counts[lid] : 0, scan_tmp);
    if (lid < RADIX) next[lid] = smaller;
#else
    uint carry = 0;
    for (uint c = 0; c < RADIX; c += RADIX_WG) {
      uint total;
      const uint smaller = carry + group_scan_exclusive(c + lid < RADIX ? counts[c + lid] : 0, s, &total);
      carry += total;
      if (c + lid < RADIX) next[c + lid] = smaller;
    }
#endif
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint blk = 0; blk < len; blk += RADIX_BLOCK) {
      const uint valid = min((uint)RADIX_BLOCK, len - blk);
      uint dest[RADIX_ITEMS];
#ifdef RADIX_MATCH
      ukey_t k[RADIX_ITEMS];
      uint to[RADIX_ITEMS], count, first;
      load_keys(src, blk, valid, k);
      count_keys(valid, shift, 1, kind, descending, k, wcount, wmask, scan_tmp, &count, &first);
      rank_keys(k, shift, wcount, wmask, to);
#pragma unroll
      for (uint j = 0; j < RADIX_ITEMS; ++j) lk[to[j]] = k[j];
      if (lid < RADIX) {
        gofs[lid] = next[lid] - first;
        next[lid] += count;
      }
#else
      for (uint d = lid; d < RADIX; d += RADIX_WG) start[d] = end[d] = 0;
      sort_block(src, VALUES(vsrc, ) blk, valid, shift, 1, kind, descending, lk, VALUES(lv, ) ls, seg_total);
      find_runs(lk, valid, shift, start, end);
      for (uint d = lid; d < RADIX; d += RADIX_WG) {
        gofs[d] = next[d] - start[d];
        next[d] += end[d] - start[d];
      }
#endif
      barrier(CLK_LOCAL_MEM_FENCE);
      if (count_later) {
#pragma unroll
        for (uint j = 0; j < RADIX_ITEMS; ++j) {
          const uint p = lid + j * RADIX_WG;
          if (p < valid) atomic_inc(&later[digit_of(lk[p], after)]);
        }
      }
      store_keys(lk, valid, shift, 1, kind, descending, gofs, dst, dest);
#ifdef RADIX_MATCH
      VALUES(value_t v[RADIX_ITEMS]; load_values(vsrc, blk, valid, v); exchange_values(v, to, lv);)
#endif
      VALUES(store_values(lv, dest, valid, vdst);)
      barrier(CLK_LOCAL_MEM_FENCE);  // the next tile reuses lk (lv) and gofs
    }
    flip ^= 1;
  }
  // Outside the `if`, though flip is the same for the whole group: PoCL 3.1 miscompiled barriers within
  // uniform branches of the segments' kernels (kernels/segments.cl).
  barrier(CLK_GLOBAL_MEM_FENCE);
  if (flip) {  // the last moving pass wrote to the scratch: the keys go home
    for (uint i = lid; i < len; i += RADIX_WG) {
      home[i] = away[i];
      VALUES(vhome[i] = vaway[i];)
    }
  }
}

#ifdef RADIX_MATCH
// Segments of one tile (len <= RADIX_BLOCK) with the multisplit ranking: the tile stays in registers and
// local memory through every pass, read once and written once, each pass's counts its own. A kernel of
// its own, under the whole-array rows' register caps: its state is a tile's, and in one kernel with the
// scratch passes above it made those much slower (docs/design.md, "Measurements behind the kernels").
kernel __attribute__((reqd_work_group_size(RADIX_WG, 1, 1))) SG_KERNEL_ATTRS void radix_segment_tiles(
    global gkey_t* keys, VALUES(global value_t* values, ) global const uint* list, uint first_entry,
    uint kind, uint descending) {
  RANK_LOCALS;
  global const uint* e = list + 4 * ((size_t)first_entry + get_group_id(0));
  const uint len = e[1];
  global gkey_t* home = keys + e[0];
  VALUES(global value_t* vhome = values + e[0];)
  const uint first = sg_index() * SG_ITEMS + sg_lane();
  ukey_t k[RADIX_ITEMS];
  uint to[RADIX_ITEMS], count, begin;
  load_keys(home, 0, len, k);
  VALUES(value_t v[RADIX_ITEMS]; load_values(vhome, 0, len, v);)
  for (uint pass = 0; pass < PASSES; ++pass) {
    const uint shift = RADIX_PASS_SHIFT(pass);
    count_keys(len, shift, pass == 0, kind, descending, k, wcount, wmask, scan_tmp, &count, &begin);
    rank_keys(k, shift, wcount, wmask, to);
#pragma unroll
    for (uint j = 0; j < RADIX_ITEMS; ++j) lk[to[j]] = k[j];
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint j = 0; j < RADIX_ITEMS; ++j) k[j] = lk[first + SG_LANES * j];  // load_keys' order
    VALUES(exchange_values(v, to, lv);
           for (uint j = 0; j < RADIX_ITEMS; ++j) v[j] = lv[first + SG_LANES * j];)
    barrier(CLK_LOCAL_MEM_FENCE);  // the next pass's counters take these words
  }
#pragma unroll
  for (uint j = 0; j < RADIX_ITEMS; ++j) {
    const uint p = first + SG_LANES * j;
    if (p < len) {
      home[p] = decode_key(k[j], kind, descending);
      VALUES(vhome[p] = v[j];)
    }
  }
}
#endif
