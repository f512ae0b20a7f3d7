// Lexicographic sort (host/src/operations/lexsort/lexsort.cpp): the permutation starts as the identity, and before each
// column's stable sort by key the column is gathered through the permutation so far, so that the sort
// moves row numbers by that column's keys. The program is built per key width (KEY_BITS; gkey_t is the
// key in global memory).
//
// The gathered copy holds every NaN as one positive NaN: a column's NaNs are equal to each other, so rows
// with NaN in a column are ordered by the columns after it (a single-column sort orders NaNs by payload).

kernel void lex_iota(global uint* perm, uint n) {
  const uint i = get_global_id(0);
  if (i < n) perm[i] = i;
}

#if KEY_BITS == 64
#define LEX_EXP_MASK 0x7FF0000000000000UL
#define LEX_NAN 0x7FFFFFFFFFFFFFFFUL
#elif KEY_BITS == 32
#define LEX_EXP_MASK 0x7F800000U
#define LEX_NAN 0x7FFFFFFFU
#elif KEY_BITS == 16
#define LEX_EXP_MASK ((kind) == KIND_BFLOAT ? 0x7F80U : 0x7C00U)
#define LEX_NAN 0x7FFFU
#else
#define LEX_EXP_MASK 0U
#define LEX_NAN 0U
#endif

// out[i] = column[perm[i]]: the key of the row that the permutation puts at position i.
kernel void lex_gather(global const gkey_t* column, global const uint* perm, global gkey_t* out, uint n,
                       uint kind) {
  const uint i = get_global_id(0);
  if (i >= n) return;
  gkey_t k = column[perm[i]];
#if KEY_BITS != 8
  const gkey_t magnitude = k & (gkey_t)~KEY_SIGN;
  if (kind >= KIND_FLOAT && magnitude > (gkey_t)LEX_EXP_MASK) k = (gkey_t)LEX_NAN;
#endif
  out[i] = k;
}
