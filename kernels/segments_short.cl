// Segmented sort, the segments of one work-item each (seg_sequential, and on CPU devices seg_vector's
// vector lanes): runs sorted in registers and merged, or an LSD radix sort by bytes. Follows segments.cl.

// The CPU path for short segments: one work-item sorts a whole segment of 2 to `seq` keys, as a core
// would: runs of 16 sorted in registers, then stable merges back and forth between the keys and `tmp` (the
// same positions in a scratch as large as the keys).
#define SEG_RUN 16
#ifndef SEG_SEQ_STAGE
#define SEG_SEQ_STAGE 0  // seg_sequential's work-group size where it stages spans (segments up to SEG_RUN)
#endif
INLINE bool seg_before(gkey_t a, gkey_t b, uint kind, uint descending) {
  return encode_key(a, kind, descending) < encode_key(b, kind, descending);
}
// seg_sequential's merges and seg_radix's passes go back and forth between a segment and its span of a
// scratch through `from` and `to` (`vfrom` and `vto` for values): SEG_SWAP turns them round after a pass,
// SEG_COPY_BACK copies the segment home from the scratch if the last pass left it there.
#define SEG_SWAP()                                                  \
  do {                                                              \
    global gkey_t* t = from;                                        \
    from = to;                                                      \
    to = t;                                                         \
    WITH_VALUES(global value_t* vt = vfrom; vfrom = vto; vto = vt;) \
  } while (0)
#define SEG_COPY_BACK(k, v)           \
  if (from != (k))                    \
    for (uint i = 0; i < len; ++i) {  \
      (k)[i] = from[i];               \
      WITH_VALUES((v)[i] = vfrom[i];) \
    }

// Segments of at least SEG_SEQ_RADIX keys (0: none) take an LSD radix sort by the bytes of the code
// instead of runs and merges: one read counts every byte's digits, then KEY_BITS / 8 passes, each a stable
// scatter between the segment and its span of `tmp`, all in the core's cache; a pass whose byte is the
// same for every key moves nothing. The merges branch on every comparison, which random keys mispredict
// half the time.
#ifndef SEG_SEQ_RADIX
#define SEG_SEQ_RADIX 256
#endif
#if SEG_SEQ_RADIX
#define SEG_PASSES (KEY_BITS / 8)
INLINE void seg_radix(global gkey_t* keys, global gkey_t* tmp,
#if VALUE_BYTES != 0
                      global value_t* values, global value_t* vtmp,
#endif
                      uint len, uint kind, uint descending) {
  uint count[SEG_PASSES][256];
  for (uint p = 0; p < SEG_PASSES; ++p)
    for (uint d = 0; d < 256; ++d) count[p][d] = 0;
  for (uint i = 0; i < len; ++i) {
    const ukey_t c = encode_key(keys[i], kind, descending);
#pragma unroll
    for (uint p = 0; p < SEG_PASSES; ++p) ++count[p][(uint)(c >> (8 * p)) & 0xFFu];
  }
  const ukey_t first = encode_key(keys[0], kind, descending);
  global gkey_t* from = keys;
  global gkey_t* to = tmp;
#if VALUE_BYTES != 0
  global value_t* vfrom = values;
  global value_t* vto = vtmp;
#endif
  for (uint p = 0; p < SEG_PASSES; ++p) {
    const uint shift = 8 * p;
    uint* at = count[p];
    if (at[(uint)(first >> shift) & 0xFFu] == len) continue;
    uint sum = 0;
    for (uint d = 0; d < 256; ++d) {
      const uint c = at[d];
      at[d] = sum;
      sum += c;
    }
    for (uint i = 0; i < len; ++i) {
      const gkey_t x = from[i];
      const uint o = at[(uint)(encode_key(x, kind, descending) >> shift) & 0xFFu]++;
      to[o] = x;
#if VALUE_BYTES != 0
      vto[o] = vfrom[i];
#endif
    }
    SEG_SWAP();
  }
  SEG_COPY_BACK(keys, values);
}
#endif

// The code a run of seg_sequential sorts by: with its position, unique, so the network is stable.
#if UKEY_BITS <= 32
typedef ulong seg_code_t;  // code << 32 | position
#define SEG_CODE(code, i) ((ulong)(code) << 32 | (i))
#define SEG_KEY(c) ((ukey_t)((c) >> 32))
#else
typedef ukey_t seg_code_t;  // the position in q
#define SEG_CODE(code, i) (code)
#define SEG_KEY(c) (c)
#endif

// A run of SEG_RUN (code, position) pairs sorted by one bitonic network, values alongside. Every index is
// a constant and every exchange a select: the run stays in registers on GPUs (values indexed by a key's
// position went to a stack in memory there, several times slower), and CPUs take no data-dependent branch
// (an if around the exchange was several times slower on PoCL).
INLINE void seg_network(seg_code_t* c, uchar* q WITH_VALUES(, value_t* v)) {
#define SEG_NET_EXCHANGE(arr, T)    \
  {                                 \
    const T x = arr[i], y = arr[l]; \
    arr[i] = swap ? y : x;          \
    arr[l] = swap ? x : y;          \
  }
#pragma unroll
  for (uint k = 2; k <= SEG_RUN; k <<= 1)
#pragma unroll
    for (uint j = k >> 1; j > 0; j >>= 1)
#pragma unroll
      for (uint i = 0; i < SEG_RUN; ++i) {
        const uint l = i ^ j;
        if (l > i) {
#if UKEY_BITS <= 32
          const bool l_first = c[l] < c[i];
#else
          const bool l_first = c[l] < c[i] || (c[l] == c[i] && q[l] < q[i]);
#endif
          const bool swap = (i & k) == 0 ? l_first : !l_first;
          SEG_NET_EXCHANGE(c, seg_code_t)
#if UKEY_BITS > 32
          SEG_NET_EXCHANGE(q, uchar)
#endif
          WITH_VALUES(SEG_NET_EXCHANGE(v, value_t))
        }
      }
#undef SEG_NET_EXCHANGE
}

#if SEG_SEQ_STAGE
// A staged segment's keys by odd-even transposition: SEG_RUN rounds of compare-exchanges between
// neighbours, which swap only keys in strict disorder and so keep equal keys in order without their
// positions. Padding (KEY_MAX) after the keys stays after them. 120 exchanges against the bitonic
// network's 80, but of half-width codes, and half the registers, which set how many segments a GPU keeps
// in flight: faster than seg_network for keys and pairs (docs/design.md, "Measurements behind the
// kernels").
INLINE void seg_transposition(ukey_t* c WITH_VALUES(, value_t* v)) {
#pragma unroll
  for (uint r = 0; r < SEG_RUN; ++r)
#pragma unroll
    for (uint i = r & 1; i + 1 < SEG_RUN; i += 2) {
      const bool swap = c[i + 1] < c[i];
      const ukey_t x = c[i], y = c[i + 1];
      c[i] = swap ? y : x;
      c[i + 1] = swap ? x : y;
#if VALUE_BYTES != 0
      const value_t vx = v[i], vy = v[i + 1];
      v[i] = swap ? vy : vx;
      v[i + 1] = swap ? vx : vy;
#endif
    }
}
#endif

// The vector path (CPU devices): seg_vector sorts SEG_LANES consecutive segments at once, each in a lane
// of an explicit vector, so that every compare-exchange of a bitonic network is one min and one max for
// all of them. PoCL vectorizes work-items only where its work-item loop is innermost, which a network's
// loops prevent (with a barrier per step it loaded each element by a gather, several times slower than
// the sequential path). Segments of 2 to SEG_VEC keys go there, by groups: group g, segments [g * SEG_LANES, (g + 1) *
// SEG_LANES), pads each to the group's P (a power of two, at least 16, from its longest segment) and is
// taken only where its keys fill at least a quarter of the P * SEG_LANES slots; seg_sequential takes the
// segments of the other groups.
#ifndef SEG_VEC
#define SEG_VEC 0
#endif
#if SEG_VEC
#if VALUE_BYTES == 0 && UKEY_BITS == 32
// Keys alone need no stability (equal codes are equal keys): 32-bit codes, 16 lanes.
#define SEG_LANES 16
typedef uint16 seg_vec_t;
typedef uint seg_lane_t;
#define SEG_LANE_CODE(c, i) (c)
#define SEG_LANE_PAD(i) 0xFFFFFFFFu
#define SEG_LANE_KEY(x) (x)
#elif VALUE_BYTES == 0
#define SEG_LANES 8
typedef ulong8 seg_vec_t;
typedef ulong seg_lane_t;
#define SEG_LANE_CODE(c, i) (c)
#define SEG_LANE_PAD(i) KEY_MAX
#define SEG_LANE_KEY(x) (x)
#elif UKEY_BITS == 32
// (code, position), unique: the network is stable, and the values follow by position at the end.
#define SEG_LANES 8
typedef ulong8 seg_vec_t;
typedef ulong seg_lane_t;
#define SEG_LANE_CODE(c, i) ((ulong)(c) << 32 | (i))
#define SEG_LANE_PAD(i) (0xFFFFFFFF00000000UL | (i))  // after every key, in order
#define SEG_LANE_KEY(x) ((ukey_t)((x) >> 32))
#else
#error "seg_vector takes no 64-bit keys with values"
#endif

#if SEG_LANES == 16
// Whole rows of 16 keys of all 16 lanes move between the keys and the rows by 16 x 16 transposes: scalar
// loads and stores of single lanes took as long as the network (PoCL, segments of 256 keys). encode_key and
// decode_key, lane-wise.
#if KEY_BITS == 32
#define SEG_GKEY16(x) convert_uint16(x)
#elif KEY_BITS == 16
#define SEG_GKEY16(x) convert_ushort16(x)
#else
#define SEG_GKEY16(x) convert_uchar16(x)
#endif
INLINE uint16 seg_vec_encode(uint16 x, uint kind, uint descending) {
  if (kind == KIND_SIGNED) {
    x ^= (uint16)KEY_SIGN;
  } else if (kind >= KIND_FLOAT) {
    x = select(x | KEY_SIGN, x ^ KEY_MAX, (x & KEY_SIGN) != (uint16)0);
    x = (x - NAN_SPAN(kind)) & KEY_MAX;
  }
  return descending ? x ^ KEY_MAX : x;
}
INLINE uint16 seg_vec_decode(uint16 x, uint kind, uint descending) {
  if (descending) x ^= (uint16)KEY_MAX;
  if (kind == KIND_SIGNED) {
    x ^= (uint16)KEY_SIGN;
  } else if (kind >= KIND_FLOAT) {
    x = (x + NAN_SPAN(kind)) & KEY_MAX;
    x = select(x ^ KEY_MAX, x ^ KEY_SIGN, (x & KEY_SIGN) != (uint16)0);
  }
  return x;
}
// Transposes r[0..16) in four rounds; round d swaps the off-diagonal d x d blocks of each 2d x 2d block.
#define SEG_T8(A, B) (uint16)(A.lo, B.lo), (uint16)(A.hi, B.hi)
#define SEG_T4(A, B) \
  (uint16)(A.s0123, B.s0123, A.s89ab, B.s89ab), (uint16)(A.s4567, B.s4567, A.scdef, B.scdef)
#define SEG_T2(A, B)                                                \
  (uint16)(A.s01, B.s01, A.s45, B.s45, A.s89, B.s89, A.scd, B.scd), \
      (uint16)(A.s23, B.s23, A.s67, B.s67, A.sab, B.sab, A.sef, B.sef)
#define SEG_T1(A, B)                                                                                        \
  (uint16)(A.s0, B.s0, A.s2, B.s2, A.s4, B.s4, A.s6, B.s6, A.s8, B.s8, A.sa, B.sa, A.sc, B.sc, A.se, B.se), \
      (uint16)(A.s1, B.s1, A.s3, B.s3, A.s5, B.s5, A.s7, B.s7, A.s9, B.s9, A.sb, B.sb, A.sd, B.sd, A.sf,    \
               B.sf)
#define SEG_T_ROUND(r, d, F)                                                \
  _Pragma("unroll") for (uint i_ = 0; i_ < 16; ++i_) if ((i_ & (d)) == 0) { \
    const uint16 a_ = r[i_], b_ = r[i_ + (d)];                              \
    const uint16 x_[2] = {F(a_, b_)};                                       \
    r[i_] = x_[0];                                                          \
    r[i_ + (d)] = x_[1];                                                    \
  }
#define SEG_TRANSPOSE16(r)    \
  {                           \
    SEG_T_ROUND(r, 8, SEG_T8) \
    SEG_T_ROUND(r, 4, SEG_T4) \
    SEG_T_ROUND(r, 2, SEG_T2) \
    SEG_T_ROUND(r, 1, SEG_T1) \
  }
#endif

// The slots P of group g's segments in seg_vector, or 0 where seg_sequential takes them.
INLINE uint seg_vec_slots(global const offset_t* off, uint num, uint g) {
  const uint s0 = g * SEG_LANES, s1 = min(num, s0 + SEG_LANES);
  uint longest = 0, total = 0;
  for (uint s = s0; s < s1; ++s) {
    const uint len = (uint)(off[s + 1] - off[s]);
    if (len >= 2 && len <= SEG_VEC) {
      longest = max(longest, len);
      total += len;
    }
  }
  if (longest == 0) return 0;
  const uint p = max(16u, 1u << seg_class(longest));
  return 4 * total >= SEG_LANES * p ? p : 0;
}

#define SEG_VEC_CX(x, y)                              \
  {                                                   \
    const seg_vec_t lo_ = min(x, y), hi_ = max(x, y); \
    x = lo_;                                          \
    y = hi_;                                          \
  }
// The steps of distance 2^(T-1) * s ... s of a bitonic merge on the 2^T rows buf[base + m * s], in
// registers: one load and store per row for T steps.
#define SEG_VEC_BLOCK(T)                                                               \
  {                                                                                    \
    seg_vec_t r[1 << (T)];                                                             \
    _Pragma("unroll") for (uint m = 0; m < (1u << (T)); ++m) r[m] = buf[base + m * s]; \
    if (up) {                                                                          \
      _Pragma("unroll") for (uint d = 1u << ((T)-1); d > 0; d >>= 1)                   \
          _Pragma("unroll") for (uint m = 0; m < (1u << (T)); ++m) if ((m & d) == 0)   \
              SEG_VEC_CX(r[m], r[m + d])                                               \
    } else {                                                                           \
      _Pragma("unroll") for (uint d = 1u << ((T)-1); d > 0; d >>= 1)                   \
          _Pragma("unroll") for (uint m = 0; m < (1u << (T)); ++m) if ((m & d) == 0)   \
              SEG_VEC_CX(r[m + d], r[m])                                               \
    }                                                                                  \
    _Pragma("unroll") for (uint m = 0; m < (1u << (T)); ++m) buf[base + m * s] = r[m]; \
  }

// Sorts r, rows b * 16 ... b * 16 + 15, in each lane into buf[b * 16, b * 16 + 16): ascending for even b,
// descending for odd b.
INLINE void seg_vec_run(seg_vec_t* buf, seg_vec_t* r, uint b) {
#pragma unroll
  for (uint k = 2; k <= 16; k <<= 1)
#pragma unroll
    for (uint d = k >> 1; d > 0; d >>= 1)
#pragma unroll
      for (uint m = 0; m < 16; ++m)
        if ((m & d) == 0) {
          if (k == 16 || (m & k) == 0)
            SEG_VEC_CX(r[m], r[m + d])
          else
            SEG_VEC_CX(r[m + d], r[m])
        }
  if (b & 1) {
#pragma unroll
    for (uint m = 0; m < 16; ++m) buf[b * 16 + 15 - m] = r[m];
  } else {
#pragma unroll
    for (uint m = 0; m < 16; ++m) buf[b * 16 + m] = r[m];
  }
}

// Sorts each lane of buf[0, p) ascending (p a power of two, 16 <= p <= SEG_VEC): the runs of 16 from row
// `first` on (those before it were sorted as they were loaded), then the bitonic merges, up to four steps
// per pass over the rows.
INLINE void seg_vec_network(seg_vec_t* buf, uint p, uint first) {
  for (uint b = first / 16; b < p / 16; ++b) {
    seg_vec_t r[16];
#pragma unroll
    for (uint m = 0; m < 16; ++m) r[m] = buf[b * 16 + m];
    seg_vec_run(buf, r, b);
  }
  for (uint k = 32; k <= p; k <<= 1) {
    uint j = k >> 1;
    for (; j >= 8; j >>= 4) {
      const uint s = j >> 3;
      for (uint q = 0; q < p / 16; ++q) {
        const uint base = (q / s) * 16 * s + q % s;  // q spread over the bits outside [s, 16 s)
        const bool up = (base & k) == 0;
        SEG_VEC_BLOCK(4)
      }
    }
    const uint s = 1;
    if (j == 4) {
      for (uint base = 0; base < p; base += 8) {
        const bool up = (base & k) == 0;
        SEG_VEC_BLOCK(3)
      }
    } else if (j == 2) {
      for (uint base = 0; base < p; base += 4) {
        const bool up = (base & k) == 0;
        SEG_VEC_BLOCK(2)
      }
    } else if (j == 1) {
      for (uint base = 0; base < p; base += 2) {
        const bool up = (base & k) == 0;
        SEG_VEC_BLOCK(1)
      }
    }
  }
}

// Work-item g sorts group g's segments, if seg_vec_slots gives it them. The lanes' strided loads and
// stores stay scalar: LLVM vectorized them into gathers and scatters, which took several times longer on
// PoCL.
kernel void seg_vector(global gkey_t* keys,
#if VALUE_BYTES != 0
                       global value_t* values,
#endif
                       global const offset_t* off, uint num, uint kind, uint descending,
                       global const uint* state, uint copy, uint value_limit) {
  if (!seg_offsets_good(state + copy * ST_WORDS, value_limit)) return;  // no barrier follows
  const uint g = get_global_id(0);
  if (g * SEG_LANES >= num) return;
  const uint p = seg_vec_slots(off, num, g);
  if (p == 0) return;
  seg_vec_t buf[SEG_VEC];
  seg_lane_t* lane = (seg_lane_t*)buf;  // lane l of row i: lane[i * SEG_LANES + l]
  uint at[SEG_LANES], len[SEG_LANES];
  for (uint l = 0; l < SEG_LANES; ++l) {
    const uint s = g * SEG_LANES + l;
    at[l] = s < num ? (uint)off[s] : 0;
    len[l] = s < num ? (uint)(off[s + 1] - off[s]) : 0;
    if (len[l] < 2 || len[l] > SEG_VEC) len[l] = 0;
  }
  uint full = 0;  // rows [0, full) hold keys in every lane: transposed whole
#if SEG_LANES == 16
  full = p;
  for (uint l = 0; l < SEG_LANES; ++l) full = min(full, len[l]);
  full &= ~15u;
  // Back-to-back segments are first copied in order: 16 streams of rows 1 KB apart took longer to load.
  gkey_t stage[16 * SEG_VEC];
  bool contiguous = full > 0;
  for (uint l = 1; l < 16; ++l) contiguous = contiguous && at[l] == at[l - 1] + len[l - 1];
  const uint span = at[15] + len[15] - at[0];
  if (contiguous) {
    for (uint i = 0; i + 16 <= span; i += 16) vstore16(vload16(0, keys + at[0] + i), 0, stage + i);
    for (uint i = span & ~15u; i < span; ++i) stage[i] = keys[at[0] + i];
  }
  for (uint i0 = 0; i0 < full; i0 += 16) {
    uint16 r[16];
#pragma unroll
    for (uint l = 0; l < 16; ++l)
      r[l] = seg_vec_encode(convert_uint16(contiguous ? vload16(0, stage + (at[l] - at[0]) + i0)
                                                      : vload16(0, keys + at[l] + i0)),
                            kind, descending);
    SEG_TRANSPOSE16(r)
    seg_vec_run(buf, r, i0 / 16);
  }
#endif
  for (uint l = 0; l < SEG_LANES; ++l) {
    global const gkey_t* k = keys + at[l];
    const uint n = len[l];
#pragma clang loop vectorize(disable)
    for (uint i = full; i < n; ++i)
      lane[i * SEG_LANES + l] = SEG_LANE_CODE(encode_key(k[i], kind, descending), i);
#pragma clang loop vectorize(disable)
    for (uint i = max(n, full); i < p; ++i) lane[i * SEG_LANES + l] = SEG_LANE_PAD(i);
  }
  seg_vec_network(buf, p, full);
#if SEG_LANES == 16
  for (uint i0 = 0; i0 < full; i0 += 16) {
    uint16 r[16];
#pragma unroll
    for (uint i = 0; i < 16; ++i) r[i] = buf[i0 + i];
    SEG_TRANSPOSE16(r)
#pragma unroll
    for (uint l = 0; l < 16; ++l)
      vstore16(SEG_GKEY16(seg_vec_decode(r[l], kind, descending)), 0, keys + at[l] + i0);
  }
#endif
  for (uint l = 0; l < SEG_LANES; ++l) {
    global gkey_t* k = keys + at[l];
    const uint n = len[l];
#if VALUE_BYTES != 0
    global value_t* v = values + at[l];
    value_t held[SEG_VEC];
#pragma clang loop vectorize(disable)
    for (uint i = 0; i < n; ++i) held[i] = v[i];
#endif
#pragma clang loop vectorize(disable)
    for (uint i = full; i < n; ++i) {
      const seg_lane_t x = lane[i * SEG_LANES + l];
      k[i] = (gkey_t)decode_key(SEG_LANE_KEY(x), kind, descending);
#if VALUE_BYTES != 0
      v[i] = held[(uint)x & 0xFFFFu];
#endif
    }
  }
}
#endif

kernel void seg_sequential(global gkey_t* keys,
#if VALUE_BYTES != 0
                           global value_t* values, global value_t* vtmp,
#endif
                           global gkey_t* tmp, global const offset_t* off, uint num, uint seq, uint each,
                           uint kind, uint descending, global const uint* state, uint copy,
                           uint value_limit) {
  // Enqueued before the host reads the classification back: with bad offsets it must write nothing.
  const bool good = seg_offsets_good(state + copy * ST_WORDS, value_limit);
#if SEG_SEQ_STAGE
  // GPUs: one segment of at most SEG_RUN keys per work-item, SEG_SEQ_STAGE work-items to a group (each is
  // 1). The group's segments lie back to back; where all are that short, their span moves through local
  // memory in order, so that loads and stores coalesce (each work-item's own keys are SEG_RUN apart across
  // the work-items). Positions are skewed by one slot per SEG_RUN against bank conflicts.
  local ukey_t stage[SEG_SEQ_STAGE * (SEG_RUN + 1)];
  WITH_VALUES(local value_t vstage[SEG_SEQ_STAGE * (SEG_RUN + 1)];)
  local uint staged;
  {
#define SEG_SKEW(p) ((p) + (p) / SEG_RUN)
    const uint lid = get_local_id(0), first = get_group_id(0) * SEG_SEQ_STAGE;
    const uint last = min(num, first + SEG_SEQ_STAGE), s = first + lid;
    const uint base = (uint)off[first], span = (uint)off[last] - base;
    const uint a = s < num ? (uint)off[s] - base : 0, len = s < num ? (uint)off[s + 1] - base - a : 0;
    if (lid == 0) staged = good && span <= SEG_SEQ_STAGE * SEG_RUN;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (len > seq || len > SEG_RUN) atomic_and(&staged, 0u);
    barrier(CLK_LOCAL_MEM_FENCE);
    // The barriers stand outside `if (staged)`, though it is uniform: PoCL 3.1 miscompiled them inside it
    // (keys written past the segments), as it did radix_select.cl's.
    const bool on = staged;
    if (on)
      for (uint p = lid; p < span; p += SEG_SEQ_STAGE) {
        stage[SEG_SKEW(p)] = encode_key(keys[base + p], kind, descending);
        WITH_VALUES(vstage[SEG_SKEW(p)] = values[base + p];)
      }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (on && len >= 2) {
      ukey_t c[SEG_RUN];
      WITH_VALUES(value_t v[SEG_RUN];)
#pragma unroll
      for (uint i = 0; i < SEG_RUN; ++i) {
        c[i] = i < len ? stage[SEG_SKEW(a + i)] : KEY_MAX;
        WITH_VALUES(v[i] = i < len ? vstage[SEG_SKEW(a + i)] : 0;)
      }
      seg_transposition(c WITH_VALUES(, v));
#pragma unroll
      for (uint i = 0; i < SEG_RUN; ++i)
        if (i < len) {
          stage[SEG_SKEW(a + i)] = c[i];
          WITH_VALUES(vstage[SEG_SKEW(a + i)] = v[i];)
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (on) {
      for (uint p = lid; p < span; p += SEG_SEQ_STAGE) {
        keys[base + p] = (gkey_t)decode_key(stage[SEG_SKEW(p)], kind, descending);
        WITH_VALUES(values[base + p] = vstage[SEG_SKEW(p)];)
      }
      return;
    }
#undef SEG_SKEW
  }
#endif
  if (!good) return;  // no barrier follows
  const uint s0 = get_global_id(0) * each, s1 = min(num, s0 + each);
#if SEG_VEC
  uint vec_group = 0xFFFFFFFFu;
  bool vec_taken = false;
#endif
  for (uint s = s0; s < s1; ++s) {
    const uint a = (uint)off[s], len = (uint)(off[s + 1] - off[s]);
    if (len < 2 || len > seq) continue;
#if SEG_VEC
    if (s / SEG_LANES != vec_group) {
      vec_group = s / SEG_LANES;
      vec_taken = seg_vec_slots(off, num, vec_group) != 0;
    }
    if (vec_taken && len <= SEG_VEC) continue;  // seg_vector's
#endif
#if SEG_SEQ_RADIX
    if (len >= SEG_SEQ_RADIX) {
      seg_radix(keys + a, tmp + a,
#if VALUE_BYTES != 0
                values + a, vtmp + a,
#endif
                len, kind, descending);
      continue;
    }
#endif
    for (uint r = 0; r < len; r += SEG_RUN) {
      const uint m = min(len - r, (uint)SEG_RUN);
      seg_code_t c[SEG_RUN];
      uchar q[SEG_RUN];
      WITH_VALUES(value_t v[SEG_RUN];)
#pragma unroll
      for (uint i = 0; i < SEG_RUN; ++i) {
        c[i] = SEG_CODE(i < m ? encode_key(keys[a + r + i], kind, descending) : KEY_MAX, i);  // padding last
        q[i] = (uchar)i;
        WITH_VALUES(if (i < m) v[i] = values[a + r + i];)
      }
      seg_network(c, q WITH_VALUES(, v));
#pragma unroll
      for (uint i = 0; i < SEG_RUN; ++i)
        if (i < m) {
          keys[a + r + i] = (gkey_t)decode_key(SEG_KEY(c[i]), kind, descending);
          WITH_VALUES(values[a + r + i] = v[i];)
        }
    }
    global gkey_t* from = keys + a;
    global gkey_t* to = tmp + a;
#if VALUE_BYTES != 0
    global value_t* vfrom = values + a;
    global value_t* vto = vtmp + a;
#endif
    for (uint w = SEG_RUN; w < len; w *= 2) {
      for (uint p = 0; p < len; p += 2 * w) {
        const uint m = min(len, p + w), e = min(len, p + 2 * w);
        uint i = p, j = m, o = p;
        while (i < m && j < e) {
          const bool take_b = seg_before(from[j], from[i], kind, descending);
          const uint x = take_b ? j++ : i++;
          to[o] = from[x];
#if VALUE_BYTES != 0
          vto[o] = vfrom[x];
#endif
          ++o;
        }
        for (; i < m; ++i, ++o) {
          to[o] = from[i];
#if VALUE_BYTES != 0
          vto[o] = vfrom[i];
#endif
        }
        for (; j < e; ++j, ++o) {
          to[o] = from[j];
#if VALUE_BYTES != 0
          vto[o] = vfrom[j];
#endif
        }
      }
      SEG_SWAP();
    }
    SEG_COPY_BACK(keys + a, values + a);
  }
}
