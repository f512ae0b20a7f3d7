// Segmented sort in local memory: the bins of short segments and the chunks of large ones sorted by a
// bitonic network (seg_local), and the merge passes that join a large segment's chunks (seg_merge).
// Follows segments.cl.

// Work-group g < nbins sorts bin g's local segments (those longer than `seq`, which seg_sequential takes); g
// >= nbins sorts chunk g - nbins of a large segment, chunks[4 * c] = (segment start, segment length, chunk
// offset within it, -).
kernel __attribute__((reqd_work_group_size(SEG_WG, 1, 1))) void seg_local(
    global gkey_t* keys,
#if VALUE_BYTES != 0
    global value_t* values,
#endif
    global const offset_t* off, uint num, uint first, global const uint* chunks, global const uint* bin_first,
    global gkey_t* ckeys,
#if VALUE_BYTES != 0
    global value_t* cvalues,
#endif
    uint chunks_compact, uint nbins, uint seq, uint kind, uint descending) {
  local ukey_t code[SEG_SLOTS];
  local ushort idx[SEG_SLOTS];  // the source of the key in the slot (moves with it)
  local ushort own[SEG_SLOTS];  // the slot block the slot belongs to (fixed)
  local ushort pos[SEG_SLOTS];  // where the slot's key goes, SEG_NONE for padding (fixed)
#if VALUE_BYTES != 0
  local value_t val[SEG_SPAN];
#endif
  // Local segments, in slot order: source start, slot block and length.
  local ushort tab_src[SEG_TABLE], tab_slot[SEG_TABLE], tab_len[SEG_TABLE];
  local uint count[SEG_CLASSES], cursor[SEG_CLASSES], first_of[SEG_CLASSES];
  local uint shared[3];  // slots used, segments, largest block

  const uint lid = get_local_id(0), g = get_group_id(0);
  uint lo;      // where the group's source span starts
  uint out_lo;  // where its output goes: the same place, or the chunk's place in the compact scratch
  global gkey_t* out = keys;
#if VALUE_BYTES != 0
  global value_t* vout = values;
#endif
  if (g < nbins) {
    lo = out_lo = first + g * SEG_BIN;
    const uint s0 = bin_first[g], s1 = bin_first[g + 1];
    for (uint c = lid; c < SEG_CLASSES; c += SEG_WG) count[c] = cursor[c] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = s0 + lid; i < s1; i += SEG_WG) {
      const uint len = (uint)(off[i + 1] - off[i]);
      if (len > seq && len >= 2 && len <= SEG_BIN) atomic_inc(&count[seg_class(len)]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
      uint slots = 0, segs = 0, top = 0;
      for (uint c = SEG_CLASSES - 1; c >= 1; --c) {
        first_of[c] = segs;
        segs += count[c];
        slots += count[c] << c;
        if (count[c] && !top) top = 1u << c;
      }
      shared[0] = slots;
      shared[1] = segs;
      shared[2] = top;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = s0 + lid; i < s1; i += SEG_WG) {
      const uint a = (uint)off[i], len = (uint)(off[i + 1] - off[i]);
      if (len > seq && len >= 2 && len <= SEG_BIN) {
        const uint c = seg_class(len), k = atomic_inc(&cursor[c]);
        uint slot = 0;  // the blocks of larger classes come first
        for (uint d = SEG_CLASSES - 1; d > c; --d) slot += count[d] << d;
        const uint t = first_of[c] + k;
        tab_src[t] = (ushort)(a - lo);
        tab_slot[t] = (ushort)(slot + (k << c));
        tab_len[t] = (ushort)len;
      }
    }
  } else {
    global const uint* ch = chunks + 4 * (g - nbins);
    const uint seg_len = ch[1], at = ch[2];
    lo = out_lo = ch[0] + at;
    if (chunks_compact) {  // an odd number of merge passes follows: they start from the scratch
      out_lo = ch[3] + at;
      out = ckeys;
#if VALUE_BYTES != 0
      vout = cvalues;
#endif
    }
    const uint len = min((uint)SEG_SPAN, seg_len - at);
    if (len == 1 && chunks_compact && lid == 0) {  // a last chunk of one key, not sorted but moved
      out[out_lo] = keys[lo];
#if VALUE_BYTES != 0
      vout[out_lo] = values[lo];
#endif
    }
    if (lid == 0) {
      tab_src[0] = 0;
      tab_slot[0] = 0;
      tab_len[0] = (ushort)len;
      const uint top = len < 2 ? 0u : 1u << seg_class(len);
      shared[0] = top;
      shared[1] = len < 2 ? 0u : 1u;
      shared[2] = top;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint used = shared[0], segs = shared[1], top = shared[2];
  if (segs == 0) return;  // uniform

  // Fill: each slot finds its block by binary search over the table (ascending slot starts).
  for (uint s = lid; s < used; s += SEG_WG) {
    uint l = 0, h = segs;  // the last t with tab_slot[t] <= s
    while (h - l > 1) {
      const uint m = (l + h) >> 1;
      if (tab_slot[m] <= s)
        l = m;
      else
        h = m;
    }
    const uint block = tab_slot[l], j = s - block;
    own[s] = (ushort)block;
    if (j < tab_len[l]) {
      const uint p = tab_src[l] + j;
      code[s] = encode_key(keys[lo + p], kind, descending);
      idx[s] = pos[s] = (ushort)p;
#if VALUE_BYTES != 0
      val[p] = values[lo + p];
#endif
    } else {
      code[s] = KEY_MAX;
      idx[s] = pos[s] = (ushort)SEG_NONE;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  for (uint k = 2; k <= top; k <<= 1) {
    // First step of each merge: slot i against its mirror in the block of k, which leaves both halves
    // bitonic with every larger key in the upper one; then half-cleaners at distances k/4 ... 1.
    for (uint h = k >> 1; h >= 1; h >>= 1) {
      for (uint q = lid; q < used / 2; q += SEG_WG) {
        const uint i = (q / h) * 2 * h + q % h;
        const uint j = h == (k >> 1) ? (i | (k - 1)) - (i & (k - 1)) : i + h;
        if (j < used && own[i] == own[j]) {
          const ukey_t ci = code[i], cj = code[j];
          const ushort xi = idx[i], xj = idx[j];
          if (cj < ci || (cj == ci && xj < xi)) {
            code[i] = cj;
            code[j] = ci;
            idx[i] = xj;
            idx[j] = xi;
          }
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }

  for (uint s = lid; s < used; s += SEG_WG) {
    const uint p = pos[s];
    if (p != SEG_NONE) {
      out[out_lo + p] = (gkey_t)decode_key(code[s], kind, descending);
#if VALUE_BYTES != 0
      vout[out_lo + p] = val[idx[s]];
#endif
    }
  }
}

// How many of the first `diag` outputs of the stable merge of runs a = src[a0, a0 + na) and
// b = src[b0, b0 + nb) come from a (a key of a equal to one of b goes first), comparing codes.
#define SEG_A_FIRST(x, y) \
  (encode_key(src[a0 + (x)], kind, descending) <= encode_key(src[b0 + (y)], kind, descending))
MERGE_PATH_SEARCH(seg_merge_path,
                  (global const gkey_t* src, uint a0, uint na, uint b0, uint nb, uint diag, uint kind,
                   uint descending),
                  SEG_A_FIRST)

// One merge pass over the large segments' chunks: runs of `width` keys (a power of two, a multiple of
// SEG_SPAN) within each segment merge pairwise, stably, from src to dst. Work-group c writes the outputs
// [at, at + SEG_SPAN) of its chunk (chunks[4 * c] = segment start, length, at, place in the compact
// scratch): it finds where they start and end in both runs (merge path), loads those keys' codes into
// local memory, merges them there (each work-item the outputs of its own diagonal) and writes the
// outputs in order. A buffer is addressed by segment start (the keys) or by the segment's place in the
// compact scratch when its *_compact flag is set. A width at least the segment's length copies it.
kernel __attribute__((reqd_work_group_size(SEG_WG, 1, 1))) void seg_merge(
    global const gkey_t* src, global gkey_t* dst,
#if VALUE_BYTES != 0
    global const value_t* vsrc, global value_t* vdst,
#endif
    global const uint* chunks, uint width, uint src_compact, uint dst_compact, uint kind, uint descending) {
  local ukey_t code[SEG_SPAN];
  local ushort pick[SEG_SPAN];  // output t comes from concatenated input pick[t]
  local uint bounds[2];
  global const uint* ch = chunks + 4 * get_group_id(0);
  const uint len = ch[1], at = ch[2];
  const uint sb = src_compact ? ch[3] : ch[0], db = dst_compact ? ch[3] : ch[0];
  const uint lid = get_local_id(0);
  const uint ps = at / (2 * width) * (2 * width);  // where the pair of runs starts
  const uint mid = min(ps + width, len), end = min(mid + width, len);
  const uint na = mid - ps, nb = end - mid;
  const uint d0 = at - ps, d1 = min(len, at + (uint)SEG_SPAN) - ps;
  if (lid < 2) bounds[lid] = seg_merge_path(src, sb + ps, na, sb + mid, nb, lid ? d1 : d0, kind, descending);
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint a0 = bounds[0], a1 = bounds[1], b0 = d0 - a0, b1 = d1 - a1;
  const uint ca = a1 - a0, total = d1 - d0;  // the local inputs: a's [0, ca), then b's [ca, total)
  for (uint t = lid; t < total; t += SEG_WG)
    code[t] = encode_key(t < ca ? src[sb + ps + a0 + t] : src[sb + mid + b0 + (t - ca)], kind, descending);
  barrier(CLK_LOCAL_MEM_FENCE);
  // Each work-item merges a run of consecutive outputs, starting where the merge path crosses its diagonal.
  const uint per = (total + SEG_WG - 1) / SEG_WG, first = min(total, lid * per),
             last = min(total, first + per);
  if (first < last) {
    const uint cb = total - ca;
    uint i = merge_path_local(code, ca, code + ca, cb, first), j = first - i;
    for (uint t = first; t < last; ++t) {
      const bool take_a = j >= cb || (i < ca && code[i] <= code[ca + j]);
      pick[t] = (ushort)(take_a ? i++ : ca + j++);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint t = lid; t < total; t += SEG_WG) {
    const uint q = pick[t];
    const uint from = q < ca ? ps + a0 + q : mid + b0 + (q - ca);
    dst[db + ps + d0 + t] = src[sb + from];
#if VALUE_BYTES != 0
    vdst[db + ps + d0 + t] = vsrc[sb + from];
#endif
  }
}
