;; SIMD row kernels over the WebAssembly backend's own memory (imported, so tensors are read and written in
;; place). Built into simd-bytes.ts by `npx tsx main/lab/model/simd-build.ts`; a unit test rebuilds it and
;; checks the two agree. Why hand-written: the softmax of the loss walks 4M logits a step, and exp in tfjs's
;; wasm kernels and in JavaScript costs about 10 ns a value; four lanes of a polynomial cost about one.
(module
  (import "env" "memory" (memory 0))

  ;; e^x on four lanes for x <= 0 (Cephes expf): x = k ln2 + r, |r| <= ln2 / 2, e^r by a degree-6
  ;; polynomial, 2^k through the exponent bits. Below -87 the result is 2^-126 e^(..) or so: as good as 0
  ;; next to the row's largest term, which is e^0 = 1. k comes from adding 1.5 2^23, which rounds x log2 e to
  ;; the nearest integer (ties to even, as f32x4.nearest) and leaves k + 0x4B400000 in the sum's bits: 2^k's
  ;; bits are then (bits + 127) << 23, with no float-to-int conversion (several instructions a lane on x64).
  ;; @inline (simd-build.ts writes it out at each call: wat-inline.ts)
  (func $exp4 (param $x v128) (result v128)
    (local $t v128) (local $k v128) (local $r v128) (local $p v128)
    (local.set $x (f32x4.pmax (local.get $x) (f32x4.splat (f32.const -87.0))))
    (local.set $t (f32x4.add (f32x4.mul (local.get $x) (f32x4.splat (f32.const 1.44269504088896341))) (f32x4.splat (f32.const 12582912.0))))
    (local.set $k (f32x4.sub (local.get $t) (f32x4.splat (f32.const 12582912.0))))
    (local.set $r (f32x4.sub (local.get $x) (f32x4.mul (local.get $k) (f32x4.splat (f32.const 0.693359375)))))
    (local.set $r (f32x4.sub (local.get $r) (f32x4.mul (local.get $k) (f32x4.splat (f32.const -2.12194440e-4)))))
    (local.set $p (f32x4.splat (f32.const 1.9875691500e-4)))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (f32x4.splat (f32.const 1.3981999507e-3))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (f32x4.splat (f32.const 8.3334519073e-3))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (f32x4.splat (f32.const 4.1665795894e-2))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (f32x4.splat (f32.const 1.6666665459e-1))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (f32x4.splat (f32.const 5.0000001201e-1))))
    (local.set $p (f32x4.add
      (f32x4.add (f32x4.mul (f32x4.mul (local.get $p) (local.get $r)) (local.get $r)) (local.get $r))
      (f32x4.splat (f32.const 1.0))))
    (f32x4.mul (local.get $p) (i32x4.shl (i32x4.add (local.get $t) (i32x4.splat (i32.const 127))) (i32.const 23))))

  ;; dst[0..n) = softmax(src[0..n)) (byte addresses of float32 rows). Returns the row's maximum m, the sum
  ;; s of e^(x - m) and the sum of e^(x - m) (x - m): log-softmax of x_t is x_t - m - log s, and the
  ;; entropy log s - dot / s.
  (func (export "softmaxRow") (param $src i32) (param $dst i32) (param $n i32) (result f32 f32 f32)
    (local $j i32) (local $n4 i32) (local $a i32)
    (local $vmax v128) (local $vsum v128) (local $vdot v128) (local $x v128) (local $e v128) (local $vinv v128)
    (local $max f32) (local $sum f32) (local $dot f32) (local $xs f32) (local $es f32) (local $inv f32)
    (local.set $n4 (i32.and (local.get $n) (i32.const -4)))
    ;; the maximum
    (local.set $vmax (f32x4.splat (f32.const -inf)))
    (block $end (loop $next
      (br_if $end (i32.ge_u (local.get $j) (local.get $n4)))
      (local.set $vmax (f32x4.pmax (local.get $vmax) (v128.load (i32.add (local.get $src) (i32.shl (local.get $j) (i32.const 2))))))
      (local.set $j (i32.add (local.get $j) (i32.const 4)))
      (br $next)))
    (local.set $max (f32.max
      (f32.max (f32x4.extract_lane 0 (local.get $vmax)) (f32x4.extract_lane 1 (local.get $vmax)))
      (f32.max (f32x4.extract_lane 2 (local.get $vmax)) (f32x4.extract_lane 3 (local.get $vmax)))))
    (block $end (loop $next
      (br_if $end (i32.ge_u (local.get $j) (local.get $n)))
      (local.set $max (f32.max (local.get $max) (f32.load (i32.add (local.get $src) (i32.shl (local.get $j) (i32.const 2))))))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br $next)))
    ;; the exponentials, their sum and dot
    (local.set $j (i32.const 0))
    (block $end (loop $next
      (br_if $end (i32.ge_u (local.get $j) (local.get $n4)))
      (local.set $a (i32.shl (local.get $j) (i32.const 2)))
      (local.set $x (f32x4.sub (v128.load (i32.add (local.get $src) (local.get $a))) (f32x4.splat (local.get $max))))
      (local.set $e (call $exp4 (local.get $x)))
      (v128.store (i32.add (local.get $dst) (local.get $a)) (local.get $e))
      (local.set $vsum (f32x4.add (local.get $vsum) (local.get $e)))
      (local.set $vdot (f32x4.add (local.get $vdot) (f32x4.mul (local.get $e) (local.get $x))))
      (local.set $j (i32.add (local.get $j) (i32.const 4)))
      (br $next)))
    (local.set $sum (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $vsum)) (f32x4.extract_lane 1 (local.get $vsum)))
      (f32.add (f32x4.extract_lane 2 (local.get $vsum)) (f32x4.extract_lane 3 (local.get $vsum)))))
    (local.set $dot (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $vdot)) (f32x4.extract_lane 1 (local.get $vdot)))
      (f32.add (f32x4.extract_lane 2 (local.get $vdot)) (f32x4.extract_lane 3 (local.get $vdot)))))
    (block $end (loop $next
      (br_if $end (i32.ge_u (local.get $j) (local.get $n)))
      (local.set $a (i32.shl (local.get $j) (i32.const 2)))
      (local.set $xs (f32.sub (f32.load (i32.add (local.get $src) (local.get $a))) (local.get $max)))
      (local.set $es (f32x4.extract_lane 0 (call $exp4 (f32x4.splat (local.get $xs)))))
      (f32.store (i32.add (local.get $dst) (local.get $a)) (local.get $es))
      (local.set $sum (f32.add (local.get $sum) (local.get $es)))
      (local.set $dot (f32.add (local.get $dot) (f32.mul (local.get $es) (local.get $xs))))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br $next)))
    ;; normalise
    (local.set $inv (f32.div (f32.const 1.0) (local.get $sum)))
    (local.set $vinv (f32x4.splat (local.get $inv)))
    (local.set $j (i32.const 0))
    (block $end (loop $next
      (br_if $end (i32.ge_u (local.get $j) (local.get $n4)))
      (local.set $a (i32.add (local.get $dst) (i32.shl (local.get $j) (i32.const 2))))
      (v128.store (local.get $a) (f32x4.mul (v128.load (local.get $a)) (local.get $vinv)))
      (local.set $j (i32.add (local.get $j) (i32.const 4)))
      (br $next)))
    (block $end (loop $next
      (br_if $end (i32.ge_u (local.get $j) (local.get $n)))
      (local.set $a (i32.add (local.get $dst) (i32.shl (local.get $j) (i32.const 2))))
      (f32.store (local.get $a) (f32.mul (f32.load (local.get $a)) (local.get $inv)))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br $next)))
    (local.get $max) (local.get $sum) (local.get $dot))

  ;; dst[0..n) = src[0..n) * s (byte addresses of float32 rows).
  (func (export "scaleRow") (param $src i32) (param $dst i32) (param $n i32) (param $s f32)
    (local $j i32) (local $n4 i32) (local $a i32) (local $vs v128)
    (local.set $n4 (i32.and (local.get $n) (i32.const -4)))
    (local.set $vs (f32x4.splat (local.get $s)))
    (block $end (loop $next
      (br_if $end (i32.ge_u (local.get $j) (local.get $n4)))
      (local.set $a (i32.shl (local.get $j) (i32.const 2)))
      (v128.store (i32.add (local.get $dst) (local.get $a)) (f32x4.mul (v128.load (i32.add (local.get $src) (local.get $a))) (local.get $vs)))
      (local.set $j (i32.add (local.get $j) (i32.const 4)))
      (br $next)))
    (block $end (loop $next
      (br_if $end (i32.ge_u (local.get $j) (local.get $n)))
      (local.set $a (i32.shl (local.get $j) (i32.const 2)))
      (f32.store (i32.add (local.get $dst) (local.get $a)) (f32.mul (f32.load (i32.add (local.get $src) (local.get $a))) (local.get $s)))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br $next))))
;; tanh on four lanes: sign(u) (1 - e) / (1 + e) with e = e^(-2 |u|) <= 1.
  ;; @inline
  (func $tanh4 (param $u v128) (result v128)
    (local $e v128)
    (local.set $e (call $exp4 (f32x4.mul (f32x4.abs (local.get $u)) (f32x4.splat (f32.const -2.0)))))
    (v128.or
      (f32x4.div (f32x4.sub (f32x4.splat (f32.const 1.0)) (local.get $e)) (f32x4.add (f32x4.splat (f32.const 1.0)) (local.get $e)))
      (v128.and (local.get $u) (i32x4.splat (i32.const 0x80000000)))))

  ;; GELU, tanh form (GPT-2): y = x/2 (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3); t = tanh(u) is kept
  ;; for the gradient. n must be a multiple of 4 (the caller runs the rest in JavaScript).
  (func (export "geluRows") (param $x i32) (param $y i32) (param $t i32) (param $n i32)
    (local $j i32) (local $a i32) (local $v v128) (local $th v128)
    (block $end (loop $next
      (br_if $end (i32.ge_u (local.get $j) (local.get $n)))
      (local.set $a (i32.shl (local.get $j) (i32.const 2)))
      (local.set $v (v128.load (i32.add (local.get $x) (local.get $a))))
      (local.set $th (call $tanh4 (f32x4.mul (f32x4.splat (f32.const 0.7978845608028654))
        (f32x4.add (local.get $v) (f32x4.mul (f32x4.splat (f32.const 0.044715)) (f32x4.mul (local.get $v) (f32x4.mul (local.get $v) (local.get $v))))))))
      (v128.store (i32.add (local.get $t) (local.get $a)) (local.get $th))
      (v128.store (i32.add (local.get $y) (local.get $a))
        (f32x4.mul (f32x4.mul (f32x4.splat (f32.const 0.5)) (local.get $v)) (f32x4.add (f32x4.splat (f32.const 1.0)) (local.get $th))))
      (local.set $j (i32.add (local.get $j) (i32.const 4)))
      (br $next))))

  ;; dx = dy (1/2 (1 + t) + x/2 (1 - t^2) sqrt(2/pi) (1 + 3 0.044715 x^2)), the derivative of geluRows' y.
  ;; n must be a multiple of 4.
  (func (export "geluGradRows") (param $x i32) (param $t i32) (param $dy i32) (param $dx i32) (param $n i32)
    (local $j i32) (local $a i32) (local $v v128) (local $th v128) (local $d v128)
    (block $end (loop $next
      (br_if $end (i32.ge_u (local.get $j) (local.get $n)))
      (local.set $a (i32.shl (local.get $j) (i32.const 2)))
      (local.set $v (v128.load (i32.add (local.get $x) (local.get $a))))
      (local.set $th (v128.load (i32.add (local.get $t) (local.get $a))))
      (local.set $d (f32x4.add
        (f32x4.mul (f32x4.splat (f32.const 0.5)) (f32x4.add (f32x4.splat (f32.const 1.0)) (local.get $th)))
        (f32x4.mul
          (f32x4.mul (f32x4.mul (f32x4.splat (f32.const 0.5)) (local.get $v)) (f32x4.sub (f32x4.splat (f32.const 1.0)) (f32x4.mul (local.get $th) (local.get $th))))
          (f32x4.mul (f32x4.splat (f32.const 0.7978845608028654))
            (f32x4.add (f32x4.splat (f32.const 1.0)) (f32x4.mul (f32x4.splat (f32.const 0.134145)) (f32x4.mul (local.get $v) (local.get $v))))))))
      (v128.store (i32.add (local.get $dx) (local.get $a)) (f32x4.mul (local.get $d) (v128.load (i32.add (local.get $dy) (local.get $a)))))
      (local.set $j (i32.add (local.get $j) (i32.const 4)))
      (br $next))))

  ;; dst = src^T for a float32 matrix [R, C] with R and C multiples of 4: four rows are read at a time and
  ;; each 4 x 4 block turned in registers, so every load and store moves 16 bytes. The blocks go tile by tile
  ;; (32 x 32): a tile's 32 source and 32 destination rows stay in the cache and the TLB, where a whole row
  ;; of blocks at a time wrote to 2048 pages of a [2048, 2048] transpose (4 ns a value against 1).
  (func (export "transpose") (param $src i32) (param $dst i32) (param $R i32) (param $C i32)
    (local $i0 i32) (local $j0 i32) (local $i1 i32) (local $j1 i32)
    (local $i i32) (local $j i32) (local $p i32) (local $q i32) (local $rowBytes i32) (local $colBytes i32)
    (local $r0 v128) (local $r1 v128) (local $r2 v128) (local $r3 v128)
    (local $t0 v128) (local $t1 v128) (local $t2 v128) (local $t3 v128)
    (local.set $rowBytes (i32.shl (local.get $C) (i32.const 2)))
    (local.set $colBytes (i32.shl (local.get $R) (i32.const 2)))
    (block $tileRowsDone (loop $tileRows
      (br_if $tileRowsDone (i32.ge_u (local.get $i0) (local.get $R)))
      (local.set $i1 (select (i32.add (local.get $i0) (i32.const 32)) (local.get $R)
        (i32.lt_u (i32.add (local.get $i0) (i32.const 32)) (local.get $R))))
      (local.set $j0 (i32.const 0))
      (block $tileColsDone (loop $tileCols
        (br_if $tileColsDone (i32.ge_u (local.get $j0) (local.get $C)))
        (local.set $j1 (select (i32.add (local.get $j0) (i32.const 32)) (local.get $C)
          (i32.lt_u (i32.add (local.get $j0) (i32.const 32)) (local.get $C))))
        (local.set $i (local.get $i0))
        (block $rowsDone (loop $rows
          (br_if $rowsDone (i32.ge_u (local.get $i) (local.get $i1)))
          (local.set $j (local.get $j0))
          (block $colsDone (loop $cols
            (br_if $colsDone (i32.ge_u (local.get $j) (local.get $j1)))
            ;; p: src[i][j]; q: dst[j][i]
            (local.set $p (i32.add (local.get $src) (i32.add (i32.mul (local.get $i) (local.get $rowBytes)) (i32.shl (local.get $j) (i32.const 2)))))
            (local.set $q (i32.add (local.get $dst) (i32.add (i32.mul (local.get $j) (local.get $colBytes)) (i32.shl (local.get $i) (i32.const 2)))))
            (local.set $r0 (v128.load (local.get $p)))
            (local.set $r1 (v128.load (i32.add (local.get $p) (local.get $rowBytes))))
            (local.set $r2 (v128.load (i32.add (local.get $p) (i32.shl (local.get $rowBytes) (i32.const 1)))))
            (local.set $r3 (v128.load (i32.add (local.get $p) (i32.mul (local.get $rowBytes) (i32.const 3)))))
            (local.set $t0 (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $r0) (local.get $r1)))
            (local.set $t1 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $r0) (local.get $r1)))
            (local.set $t2 (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $r2) (local.get $r3)))
            (local.set $t3 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $r2) (local.get $r3)))
            (v128.store (local.get $q) (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $t0) (local.get $t2)))
            (v128.store (i32.add (local.get $q) (local.get $colBytes)) (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $t0) (local.get $t2)))
            (v128.store (i32.add (local.get $q) (i32.shl (local.get $colBytes) (i32.const 1))) (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $t1) (local.get $t3)))
            (v128.store (i32.add (local.get $q) (i32.mul (local.get $colBytes) (i32.const 3))) (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $t1) (local.get $t3)))
            (local.set $j (i32.add (local.get $j) (i32.const 4)))
            (br $cols)))
          (local.set $i (i32.add (local.get $i) (i32.const 4)))
          (br $rows)))
        (local.set $j0 (local.get $j1))
        (br $tileCols)))
      (local.set $i0 (local.get $i1))
      (br $tileRows))))

  ;; ---------- attention, one head per call (attention.ts) ----------
  ;; q, k, v, y, dq, dk, dv are T rows of D float32 with D a multiple of 16, ld floats apart (a head of a
  ;; [B, T, H, D] tensor: ld = H D); probs rows are T4 = T rounded up to 4 wide; the backward's scratch is a
  ;; row of T4 floats. Causal: query i sees keys 0 .. i, and keys past it are never touched.

  ;; out[j] = x . m_j for j < n (n >= 1): x a row of D floats, m rows of D floats ld apart, D a multiple of 16.
  ;; Keys go four at a time, 16 channels of x held in registers against four key rows, and the four partial
  ;; vectors are summed across their lanes by shuffles; the last group's rows past n read row n - 1 (their
  ;; lanes, up to the multiple of 4, get a finite value the callers mask or weight by 0).
  (func $rowDots (param $x i32) (param $m i32) (param $n i32) (param $D i32) (param $ld i32) (param $out i32)
    (local $dc i32) (local $dBytes i32) (local $rowBytes i32) (local $j i32) (local $last i32) (local $a0 i32) (local $a1 i32) (local $a2 i32) (local $a3 i32)
    (local $x0 v128) (local $x1 v128) (local $x2 v128) (local $x3 v128) (local $p0 v128) (local $p1 v128) (local $p2 v128) (local $p3 v128)
    (local $s v128) (local $o i32)
    (local.set $rowBytes (i32.shl (local.get $ld) (i32.const 2)))
    (local.set $dBytes (i32.shl (local.get $D) (i32.const 2)))
    (block $dDone (loop $dLoop
      (br_if $dDone (i32.ge_u (local.get $dc) (local.get $dBytes)))
      (local.set $a0 (i32.add (local.get $x) (local.get $dc)))
      (local.set $x0 (v128.load (local.get $a0)))
      (local.set $x1 (v128.load offset=16 (local.get $a0)))
      (local.set $x2 (v128.load offset=32 (local.get $a0)))
      (local.set $x3 (v128.load offset=48 (local.get $a0)))
      (local.set $last (i32.add (i32.add (local.get $m) (local.get $dc)) (i32.mul (i32.sub (local.get $n) (i32.const 1)) (local.get $rowBytes))))
      (local.set $a0 (i32.add (local.get $m) (local.get $dc)))
      (local.set $j (i32.const 0))
      (block $jDone (loop $jLoop
        (br_if $jDone (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $a1 (select (i32.add (local.get $a0) (local.get $rowBytes)) (local.get $last) (i32.lt_u (i32.add (local.get $j) (i32.const 1)) (local.get $n))))
        (local.set $a2 (select (i32.add (local.get $a1) (local.get $rowBytes)) (local.get $last) (i32.lt_u (i32.add (local.get $j) (i32.const 2)) (local.get $n))))
        (local.set $a3 (select (i32.add (local.get $a2) (local.get $rowBytes)) (local.get $last) (i32.lt_u (i32.add (local.get $j) (i32.const 3)) (local.get $n))))
        (local.set $p0 (f32x4.add
          (f32x4.add (f32x4.mul (local.get $x0) (v128.load (local.get $a0))) (f32x4.mul (local.get $x1) (v128.load offset=16 (local.get $a0))))
          (f32x4.add (f32x4.mul (local.get $x2) (v128.load offset=32 (local.get $a0))) (f32x4.mul (local.get $x3) (v128.load offset=48 (local.get $a0))))))
        (local.set $p1 (f32x4.add
          (f32x4.add (f32x4.mul (local.get $x0) (v128.load (local.get $a1))) (f32x4.mul (local.get $x1) (v128.load offset=16 (local.get $a1))))
          (f32x4.add (f32x4.mul (local.get $x2) (v128.load offset=32 (local.get $a1))) (f32x4.mul (local.get $x3) (v128.load offset=48 (local.get $a1))))))
        (local.set $p2 (f32x4.add
          (f32x4.add (f32x4.mul (local.get $x0) (v128.load (local.get $a2))) (f32x4.mul (local.get $x1) (v128.load offset=16 (local.get $a2))))
          (f32x4.add (f32x4.mul (local.get $x2) (v128.load offset=32 (local.get $a2))) (f32x4.mul (local.get $x3) (v128.load offset=48 (local.get $a2))))))
        (local.set $p3 (f32x4.add
          (f32x4.add (f32x4.mul (local.get $x0) (v128.load (local.get $a3))) (f32x4.mul (local.get $x1) (v128.load offset=16 (local.get $a3))))
          (f32x4.add (f32x4.mul (local.get $x2) (v128.load offset=32 (local.get $a3))) (f32x4.mul (local.get $x3) (v128.load offset=48 (local.get $a3))))))
        ;; [p0, p1, p2, p3] summed across lanes: pairs (lanes 0 + 2, 1 + 3) interleaved, then halves added
        (local.set $p0 (f32x4.add
          (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $p0) (local.get $p1))
          (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $p0) (local.get $p1))))
        (local.set $p2 (f32x4.add
          (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $p2) (local.get $p3))
          (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $p2) (local.get $p3))))
        (local.set $s (f32x4.add
          (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $p0) (local.get $p2))
          (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $p0) (local.get $p2))))
        (local.set $o (i32.add (local.get $out) (i32.shl (local.get $j) (i32.const 2))))
        (v128.store (local.get $o) (if (result v128) (local.get $dc)
          (then (f32x4.add (v128.load (local.get $o)) (local.get $s)))
          (else (local.get $s))))
        (local.set $a0 (i32.add (local.get $a3) (local.get $rowBytes)))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $jLoop)))
      (local.set $dc (i32.add (local.get $dc) (i32.const 64)))
      (br $dLoop))))

  ;; out[0 .. D) = sum_{j < n} w[j] m[j][0 .. D) for n rows of D, ld floats apart: a weighted sum of rows,
  ;; 16 channels at a time in four registers, four rows a pass with their weights loaded as one vector and
  ;; each lane splatted by a shuffle; the rest of n one row at a time.
  (func $weightedRows (param $w i32) (param $m i32) (param $n i32) (param $D i32) (param $ld i32) (param $out i32)
    (local $dc i32) (local $j i32) (local $n4 i32) (local $a i32) (local $rowBytes i32) (local $dBytes i32) (local $w4 v128) (local $wj v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $rowBytes (i32.shl (local.get $ld) (i32.const 2)))
    (local.set $dBytes (i32.shl (local.get $D) (i32.const 2)))
    (local.set $n4 (i32.and (local.get $n) (i32.const -4)))
    (block $dDone (loop $dLoop
      (br_if $dDone (i32.ge_u (local.get $dc) (local.get $dBytes)))
      (local.set $a0 (v128.const i32x4 0 0 0 0))
      (local.set $a1 (v128.const i32x4 0 0 0 0))
      (local.set $a2 (v128.const i32x4 0 0 0 0))
      (local.set $a3 (v128.const i32x4 0 0 0 0))
      (local.set $a (i32.add (local.get $m) (local.get $dc)))
      (local.set $j (i32.const 0))
      (block $jDone (loop $jLoop
        (br_if $jDone (i32.ge_u (local.get $j) (local.get $n4)))
        (local.set $w4 (v128.load (i32.add (local.get $w) (i32.shl (local.get $j) (i32.const 2)))))
        (local.set $wj (i8x16.shuffle 0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3 (local.get $w4) (local.get $w4)))
        (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (local.get $wj) (v128.load (local.get $a)))))
        (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (local.get $wj) (v128.load offset=16 (local.get $a)))))
        (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (local.get $wj) (v128.load offset=32 (local.get $a)))))
        (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (local.get $wj) (v128.load offset=48 (local.get $a)))))
        (local.set $a (i32.add (local.get $a) (local.get $rowBytes)))
        (local.set $wj (i8x16.shuffle 4 5 6 7 4 5 6 7 4 5 6 7 4 5 6 7 (local.get $w4) (local.get $w4)))
        (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (local.get $wj) (v128.load (local.get $a)))))
        (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (local.get $wj) (v128.load offset=16 (local.get $a)))))
        (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (local.get $wj) (v128.load offset=32 (local.get $a)))))
        (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (local.get $wj) (v128.load offset=48 (local.get $a)))))
        (local.set $a (i32.add (local.get $a) (local.get $rowBytes)))
        (local.set $wj (i8x16.shuffle 8 9 10 11 8 9 10 11 8 9 10 11 8 9 10 11 (local.get $w4) (local.get $w4)))
        (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (local.get $wj) (v128.load (local.get $a)))))
        (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (local.get $wj) (v128.load offset=16 (local.get $a)))))
        (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (local.get $wj) (v128.load offset=32 (local.get $a)))))
        (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (local.get $wj) (v128.load offset=48 (local.get $a)))))
        (local.set $a (i32.add (local.get $a) (local.get $rowBytes)))
        (local.set $wj (i8x16.shuffle 12 13 14 15 12 13 14 15 12 13 14 15 12 13 14 15 (local.get $w4) (local.get $w4)))
        (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (local.get $wj) (v128.load (local.get $a)))))
        (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (local.get $wj) (v128.load offset=16 (local.get $a)))))
        (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (local.get $wj) (v128.load offset=32 (local.get $a)))))
        (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (local.get $wj) (v128.load offset=48 (local.get $a)))))
        (local.set $a (i32.add (local.get $a) (local.get $rowBytes)))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $jLoop)))
      (block $tDone (loop $tLoop
        (br_if $tDone (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $wj (f32x4.splat (f32.load (i32.add (local.get $w) (i32.shl (local.get $j) (i32.const 2))))))
        (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (local.get $wj) (v128.load (local.get $a)))))
        (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (local.get $wj) (v128.load offset=16 (local.get $a)))))
        (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (local.get $wj) (v128.load offset=32 (local.get $a)))))
        (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (local.get $wj) (v128.load offset=48 (local.get $a)))))
        (local.set $a (i32.add (local.get $a) (local.get $rowBytes)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $tLoop)))
      (local.set $a (i32.add (local.get $out) (local.get $dc)))
      (v128.store (local.get $a) (local.get $a0))
      (v128.store offset=16 (local.get $a) (local.get $a1))
      (v128.store offset=32 (local.get $a) (local.get $a2))
      (v128.store offset=48 (local.get $a) (local.get $a3))
      (local.set $dc (i32.add (local.get $dc) (i32.const 64)))
      (br $dLoop))))

  (func $hsum (param $x v128) (result f32)
    (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $x)) (f32x4.extract_lane 1 (local.get $x)))
      (f32.add (f32x4.extract_lane 2 (local.get $x)) (f32x4.extract_lane 3 (local.get $x)))))

  ;; One query of one head: row[j] = softmax(scale q . k_j - slope |i - j|, j < n), 0 from n to width (a
  ;; multiple of 4, at least n); y = sum_j row[j] v_j. q and y are the query's rows, k and v the keys' (stride ld).
  (func $attnRow (param $q i32) (param $k i32) (param $v i32) (param $n i32) (param $i i32) (param $row i32) (param $y i32)
    (param $D i32) (param $ld i32) (param $scale f32) (param $slope f32) (param $width i32)
    (local $j i32) (local $a i32)
    (local $jv v128) (local $nv v128) (local $iv v128) (local $s v128) (local $x v128) (local $e v128) (local $vmax v128) (local $vsum v128)
    (local $max f32)
    (call $rowDots (local.get $q) (local.get $k) (local.get $n) (local.get $D) (local.get $ld) (local.get $row))
    ;; scores, -inf on the lanes past n, and their maximum
    (local.set $jv (v128.const i32x4 0 1 2 3))
    (local.set $nv (i32x4.splat (local.get $n)))
    (local.set $iv (f32x4.splat (f32.convert_i32_s (local.get $i))))
    (local.set $vmax (f32x4.splat (f32.const -inf)))
    (local.set $j (i32.const 0))
    (block $sDone (loop $sLoop
      (br_if $sDone (i32.ge_u (local.get $j) (local.get $n)))
      (local.set $s (f32x4.sub
        (f32x4.mul (v128.load (i32.add (local.get $row) (i32.shl (local.get $j) (i32.const 2)))) (f32x4.splat (local.get $scale)))
        (f32x4.mul (f32x4.splat (local.get $slope)) (f32x4.abs (f32x4.sub (local.get $iv) (f32x4.convert_i32x4_s (local.get $jv)))))))
      (local.set $s (v128.bitselect (local.get $s) (f32x4.splat (f32.const -inf)) (i32x4.lt_s (local.get $jv) (local.get $nv))))
      (v128.store (i32.add (local.get $row) (i32.shl (local.get $j) (i32.const 2))) (local.get $s))
      (local.set $vmax (f32x4.pmax (local.get $vmax) (local.get $s)))
      (local.set $jv (i32x4.add (local.get $jv) (i32x4.splat (i32.const 4))))
      (local.set $j (i32.add (local.get $j) (i32.const 4)))
      (br $sLoop)))
    (local.set $max (f32.max
      (f32.max (f32x4.extract_lane 0 (local.get $vmax)) (f32x4.extract_lane 1 (local.get $vmax)))
      (f32.max (f32x4.extract_lane 2 (local.get $vmax)) (f32x4.extract_lane 3 (local.get $vmax)))))
    ;; exponentials (0 where the score is -inf) and their sum
    (local.set $vsum (v128.const i32x4 0 0 0 0))
    (local.set $j (i32.const 0))
    (block $eDone (loop $eLoop
      (br_if $eDone (i32.ge_u (local.get $j) (local.get $n)))
      (local.set $a (i32.add (local.get $row) (i32.shl (local.get $j) (i32.const 2))))
      (local.set $x (v128.load (local.get $a)))
      (local.set $e (v128.and (call $exp4 (f32x4.sub (local.get $x) (f32x4.splat (local.get $max))))
        (f32x4.ne (local.get $x) (f32x4.splat (f32.const -inf)))))
      (v128.store (local.get $a) (local.get $e))
      (local.set $vsum (f32x4.add (local.get $vsum) (local.get $e)))
      (local.set $j (i32.add (local.get $j) (i32.const 4)))
      (br $eLoop)))
    ;; normalise; zero the rest of the row
    (local.set $e (f32x4.splat (f32.div (f32.const 1) (call $hsum (local.get $vsum)))))
    (local.set $j (i32.const 0))
    (block $nDone (loop $nLoop
      (br_if $nDone (i32.ge_u (local.get $j) (local.get $width)))
      (local.set $a (i32.add (local.get $row) (i32.shl (local.get $j) (i32.const 2))))
      (v128.store (local.get $a)
        (if (result v128) (i32.lt_u (local.get $j) (local.get $n))
          (then (f32x4.mul (v128.load (local.get $a)) (local.get $e)))
          (else (v128.const i32x4 0 0 0 0))))
      (local.set $j (i32.add (local.get $j) (i32.const 4)))
      (br $nLoop)))
    (call $weightedRows (local.get $row) (local.get $v) (local.get $n) (local.get $D) (local.get $ld)
      (local.get $y)))

  ;; Forward for one head: probs[i] = softmax(scale q_i k_j - slope |i - j|, j <= i), 0 past i;
  ;; y_i = sum_j probs[i][j] v_j.
  (func (export "attnForward") (param $q i32) (param $k i32) (param $v i32) (param $y i32) (param $probs i32)
    (param $T i32) (param $D i32) (param $ld i32) (param $scale f32) (param $slope f32)
    (local $T4 i32) (local $rowBytes i32) (local $i i32) (local $n i32)
    (local.set $T4 (i32.and (i32.add (local.get $T) (i32.const 3)) (i32.const -4)))
    (local.set $rowBytes (i32.shl (local.get $ld) (i32.const 2)))
    (block $iDone (loop $iLoop
      (br_if $iDone (i32.ge_u (local.get $i) (local.get $T)))
      (local.set $n (i32.add (local.get $i) (i32.const 1)))
      (call $attnRow
        (i32.add (local.get $q) (i32.mul (local.get $i) (local.get $rowBytes))) (local.get $k) (local.get $v) (local.get $n) (local.get $i)
        (i32.add (local.get $probs) (i32.shl (i32.mul (local.get $i) (local.get $T4)) (i32.const 2)))
        (i32.add (local.get $y) (i32.mul (local.get $i) (local.get $rowBytes)))
        (local.get $D) (local.get $ld) (local.get $scale) (local.get $slope) (local.get $T4))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $iLoop))))

  ;; Decoding: the query q of position n - 1 over keys 0 .. n - 1 (batch-decoder.ts's slots); row is scratch
  ;; of n rounded up to 4 floats.
  (func (export "attnQuery") (param $q i32) (param $k i32) (param $v i32) (param $n i32) (param $row i32) (param $y i32)
    (param $D i32) (param $ld i32) (param $scale f32) (param $slope f32)
    (call $attnRow (local.get $q) (local.get $k) (local.get $v) (local.get $n) (i32.sub (local.get $n) (i32.const 1)) (local.get $row) (local.get $y)
      (local.get $D) (local.get $ld) (local.get $scale) (local.get $slope) (i32.and (i32.add (local.get $n) (i32.const 3)) (i32.const -4))))

  ;; Backward for one head: dP_ij = dy_i . v_j, dS_ij = scale P_ij (dP_ij - sum_j dP_ij P_ij),
  ;; dq_i = sum_j dS_ij k_j, dk_j += dS_ij q_i, dv_j += P_ij dy_i. dk and dv must be zero on entry.
  (func (export "attnBackward") (param $q i32) (param $k i32) (param $v i32) (param $probs i32) (param $dy i32)
    (param $dq i32) (param $dk i32) (param $dv i32) (param $scratch i32) (param $T i32) (param $D i32) (param $ld i32) (param $scale f32)
    (local $T4 i32) (local $ds i32) (local $i i32) (local $j i32) (local $n i32) (local $row i32)
    (local $a i32) (local $dc i32) (local $qi i32) (local $jrow i32) (local $rowBytes i32) (local $dBytes i32)
    (local $acc v128) (local $vdelta v128) (local $delta v128) (local $sj v128) (local $pj v128)
    (local $q0 v128) (local $q1 v128) (local $q2 v128) (local $q3 v128) (local $g0 v128) (local $g1 v128) (local $g2 v128) (local $g3 v128)
    (local.set $T4 (i32.and (i32.add (local.get $T) (i32.const 3)) (i32.const -4)))
    (local.set $rowBytes (i32.shl (local.get $ld) (i32.const 2)))
    (local.set $dBytes (i32.shl (local.get $D) (i32.const 2)))
    (local.set $ds (local.get $scratch))
    (block $iDone (loop $iLoop
      (br_if $iDone (i32.ge_u (local.get $i) (local.get $T)))
      (local.set $n (i32.add (local.get $i) (i32.const 1)))
      (local.set $row (i32.add (local.get $probs) (i32.shl (i32.mul (local.get $i) (local.get $T4)) (i32.const 2))))
      (local.set $qi (i32.mul (local.get $i) (local.get $rowBytes)))
      (call $rowDots (i32.add (local.get $dy) (local.get $qi)) (local.get $v) (local.get $n) (local.get $D) (local.get $ld) (local.get $ds))
      ;; dP_ij = dy_i . v_j in the ds row; delta = sum_j dP_ij P_ij (P is 0 on the lanes past n)
      (local.set $vdelta (v128.const i32x4 0 0 0 0))
      (local.set $j (i32.const 0))
      (block $pDone (loop $pLoop
        (br_if $pDone (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $a (i32.shl (local.get $j) (i32.const 2)))
        (local.set $acc (v128.load (i32.add (local.get $ds) (local.get $a))))
        (local.set $vdelta (f32x4.add (local.get $vdelta) (f32x4.mul (local.get $acc) (v128.load (i32.add (local.get $row) (local.get $a))))))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $pLoop)))
      (local.set $delta (f32x4.splat (call $hsum (local.get $vdelta))))
      ;; dS = scale P (dP - delta)
      (local.set $j (i32.const 0))
      (block $sDone (loop $sLoop
        (br_if $sDone (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $a (i32.shl (local.get $j) (i32.const 2)))
        (v128.store (i32.add (local.get $ds) (local.get $a))
          (f32x4.mul (f32x4.mul (f32x4.splat (local.get $scale)) (v128.load (i32.add (local.get $row) (local.get $a))))
            (f32x4.sub (v128.load (i32.add (local.get $ds) (local.get $a))) (local.get $delta))))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $sLoop)))
      ;; dq_i = sum_j dS_ij k_j
      (call $weightedRows (local.get $ds) (local.get $k) (local.get $n) (local.get $D) (local.get $ld) (i32.add (local.get $dq) (local.get $qi)))
      ;; dk_j += dS_ij q_i and dv_j += P_ij dy_i, 16 channels at a time with q_i and dy_i in registers
      (local.set $dc (i32.const 0))
      (block $dDone (loop $dLoop
        (br_if $dDone (i32.ge_u (local.get $dc) (local.get $dBytes)))
        (local.set $a (i32.add (local.get $q) (i32.add (local.get $qi) (local.get $dc))))
        (local.set $q0 (v128.load (local.get $a)))
        (local.set $q1 (v128.load offset=16 (local.get $a)))
        (local.set $q2 (v128.load offset=32 (local.get $a)))
        (local.set $q3 (v128.load offset=48 (local.get $a)))
        (local.set $a (i32.add (local.get $dy) (i32.add (local.get $qi) (local.get $dc))))
        (local.set $g0 (v128.load (local.get $a)))
        (local.set $g1 (v128.load offset=16 (local.get $a)))
        (local.set $g2 (v128.load offset=32 (local.get $a)))
        (local.set $g3 (v128.load offset=48 (local.get $a)))
        (local.set $jrow (local.get $dc))
        (local.set $j (i32.const 0))
        (block $kDone (loop $kLoop
          (br_if $kDone (i32.ge_u (local.get $j) (local.get $n)))
          (local.set $sj (f32x4.splat (f32.load (i32.add (local.get $ds) (i32.shl (local.get $j) (i32.const 2))))))
          (local.set $pj (f32x4.splat (f32.load (i32.add (local.get $row) (i32.shl (local.get $j) (i32.const 2))))))
          (local.set $a (i32.add (local.get $dk) (local.get $jrow)))
          (v128.store (local.get $a) (f32x4.add (v128.load (local.get $a)) (f32x4.mul (local.get $sj) (local.get $q0))))
          (v128.store offset=16 (local.get $a) (f32x4.add (v128.load offset=16 (local.get $a)) (f32x4.mul (local.get $sj) (local.get $q1))))
          (v128.store offset=32 (local.get $a) (f32x4.add (v128.load offset=32 (local.get $a)) (f32x4.mul (local.get $sj) (local.get $q2))))
          (v128.store offset=48 (local.get $a) (f32x4.add (v128.load offset=48 (local.get $a)) (f32x4.mul (local.get $sj) (local.get $q3))))
          (local.set $a (i32.add (local.get $dv) (local.get $jrow)))
          (v128.store (local.get $a) (f32x4.add (v128.load (local.get $a)) (f32x4.mul (local.get $pj) (local.get $g0))))
          (v128.store offset=16 (local.get $a) (f32x4.add (v128.load offset=16 (local.get $a)) (f32x4.mul (local.get $pj) (local.get $g1))))
          (v128.store offset=32 (local.get $a) (f32x4.add (v128.load offset=32 (local.get $a)) (f32x4.mul (local.get $pj) (local.get $g2))))
          (v128.store offset=48 (local.get $a) (f32x4.add (v128.load offset=48 (local.get $a)) (f32x4.mul (local.get $pj) (local.get $g3))))
          (local.set $jrow (i32.add (local.get $jrow) (local.get $rowBytes)))
          (local.set $j (i32.add (local.get $j) (i32.const 1)))
          (br $kLoop)))
        (local.set $dc (i32.add (local.get $dc) (i32.const 64)))
        (br $dLoop)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $iLoop))))

  ;; ---------- layer norm (layernorm.ts) ----------
  ;; Rows of C floats, C a multiple of 4: y = (x - mean) rstd g + b with rstd = 1 / sqrt(var + eps); each row's
  ;; mean and rstd are written for the gradient.
  (func (export "layerNormRows") (param $x i32) (param $g i32) (param $b i32) (param $y i32) (param $mean i32) (param $rstd i32)
    (param $rows i32) (param $C i32) (param $eps f32)
    (local $r i32) (local $c i32) (local $rowBytes i32) (local $xr i32) (local $yr i32)
    (local $acc v128) (local $mu v128) (local $rs v128) (local $d v128) (local $mus f32) (local $rss f32)
    (local.set $rowBytes (i32.shl (local.get $C) (i32.const 2)))
    (block $rDone (loop $rLoop
      (br_if $rDone (i32.ge_u (local.get $r) (local.get $rows)))
      (local.set $xr (i32.add (local.get $x) (i32.mul (local.get $r) (local.get $rowBytes))))
      (local.set $yr (i32.add (local.get $y) (i32.mul (local.get $r) (local.get $rowBytes))))
      ;; the mean
      (local.set $acc (v128.const i32x4 0 0 0 0))
      (local.set $c (i32.const 0))
      (block $done (loop $next
        (br_if $done (i32.ge_u (local.get $c) (local.get $rowBytes)))
        (local.set $acc (f32x4.add (local.get $acc) (v128.load (i32.add (local.get $xr) (local.get $c)))))
        (local.set $c (i32.add (local.get $c) (i32.const 16)))
        (br $next)))
      (local.set $mus (f32.div (call $hsum (local.get $acc)) (f32.convert_i32_u (local.get $C))))
      (local.set $mu (f32x4.splat (local.get $mus)))
      ;; the variance about it
      (local.set $acc (v128.const i32x4 0 0 0 0))
      (local.set $c (i32.const 0))
      (block $done (loop $next
        (br_if $done (i32.ge_u (local.get $c) (local.get $rowBytes)))
        (local.set $d (f32x4.sub (v128.load (i32.add (local.get $xr) (local.get $c))) (local.get $mu)))
        (local.set $acc (f32x4.add (local.get $acc) (f32x4.mul (local.get $d) (local.get $d))))
        (local.set $c (i32.add (local.get $c) (i32.const 16)))
        (br $next)))
      (local.set $rss (f32.div (f32.const 1)
        (f32.sqrt (f32.add (f32.div (call $hsum (local.get $acc)) (f32.convert_i32_u (local.get $C))) (local.get $eps)))))
      (local.set $rs (f32x4.splat (local.get $rss)))
      (f32.store (i32.add (local.get $mean) (i32.shl (local.get $r) (i32.const 2))) (local.get $mus))
      (f32.store (i32.add (local.get $rstd) (i32.shl (local.get $r) (i32.const 2))) (local.get $rss))
      ;; y
      (local.set $c (i32.const 0))
      (block $done (loop $next
        (br_if $done (i32.ge_u (local.get $c) (local.get $rowBytes)))
        (v128.store (i32.add (local.get $yr) (local.get $c))
          (f32x4.add
            (f32x4.mul (f32x4.mul (f32x4.sub (v128.load (i32.add (local.get $xr) (local.get $c))) (local.get $mu)) (local.get $rs))
              (v128.load (i32.add (local.get $g) (local.get $c))))
            (v128.load (i32.add (local.get $b) (local.get $c)))))
        (local.set $c (i32.add (local.get $c) (i32.const 16)))
        (br $next)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $rLoop))))

  ;; The gradient of layerNormRows: with xhat = (x - mean) rstd and dxhat = dy g,
  ;; dx = rstd (dxhat - mean(dxhat) - xhat mean(dxhat xhat)); dg += dy xhat and db += dy over the rows
  ;; (zero them first).
  (func (export "layerNormGradRows") (param $x i32) (param $g i32) (param $mean i32) (param $rstd i32) (param $dy i32)
    (param $dx i32) (param $dg i32) (param $db i32) (param $rows i32) (param $C i32)
    (local $r i32) (local $c i32) (local $rowBytes i32) (local $xr i32) (local $dyr i32) (local $dxr i32)
    (local $mu v128) (local $rs v128) (local $xh v128) (local $dyv v128) (local $dxh v128) (local $s1 v128) (local $s2 v128)
    (local $inv f32)
    (local.set $rowBytes (i32.shl (local.get $C) (i32.const 2)))
    (local.set $inv (f32.div (f32.const 1) (f32.convert_i32_u (local.get $C))))
    (block $rDone (loop $rLoop
      (br_if $rDone (i32.ge_u (local.get $r) (local.get $rows)))
      (local.set $xr (i32.add (local.get $x) (i32.mul (local.get $r) (local.get $rowBytes))))
      (local.set $dyr (i32.add (local.get $dy) (i32.mul (local.get $r) (local.get $rowBytes))))
      (local.set $dxr (i32.add (local.get $dx) (i32.mul (local.get $r) (local.get $rowBytes))))
      (local.set $mu (f32x4.splat (f32.load (i32.add (local.get $mean) (i32.shl (local.get $r) (i32.const 2))))))
      (local.set $rs (f32x4.splat (f32.load (i32.add (local.get $rstd) (i32.shl (local.get $r) (i32.const 2))))))
      (local.set $s1 (v128.const i32x4 0 0 0 0))
      (local.set $s2 (v128.const i32x4 0 0 0 0))
      (local.set $c (i32.const 0))
      (block $done (loop $next
        (br_if $done (i32.ge_u (local.get $c) (local.get $rowBytes)))
        (local.set $xh (f32x4.mul (f32x4.sub (v128.load (i32.add (local.get $xr) (local.get $c))) (local.get $mu)) (local.get $rs)))
        (local.set $dyv (v128.load (i32.add (local.get $dyr) (local.get $c))))
        (local.set $dxh (f32x4.mul (local.get $dyv) (v128.load (i32.add (local.get $g) (local.get $c)))))
        (local.set $s1 (f32x4.add (local.get $s1) (local.get $dxh)))
        (local.set $s2 (f32x4.add (local.get $s2) (f32x4.mul (local.get $dxh) (local.get $xh))))
        (v128.store (i32.add (local.get $dg) (local.get $c))
          (f32x4.add (v128.load (i32.add (local.get $dg) (local.get $c))) (f32x4.mul (local.get $dyv) (local.get $xh))))
        (v128.store (i32.add (local.get $db) (local.get $c))
          (f32x4.add (v128.load (i32.add (local.get $db) (local.get $c))) (local.get $dyv)))
        (local.set $c (i32.add (local.get $c) (i32.const 16)))
        (br $next)))
      (local.set $s1 (f32x4.splat (f32.mul (call $hsum (local.get $s1)) (local.get $inv))))
      (local.set $s2 (f32x4.splat (f32.mul (call $hsum (local.get $s2)) (local.get $inv))))
      (local.set $c (i32.const 0))
      (block $done (loop $next
        (br_if $done (i32.ge_u (local.get $c) (local.get $rowBytes)))
        (local.set $xh (f32x4.mul (f32x4.sub (v128.load (i32.add (local.get $xr) (local.get $c))) (local.get $mu)) (local.get $rs)))
        (local.set $dxh (f32x4.mul (v128.load (i32.add (local.get $dyr) (local.get $c))) (v128.load (i32.add (local.get $g) (local.get $c)))))
        (v128.store (i32.add (local.get $dxr) (local.get $c))
          (f32x4.mul (local.get $rs) (f32x4.sub (f32x4.sub (local.get $dxh) (local.get $s1)) (f32x4.mul (local.get $xh) (local.get $s2)))))
        (local.set $c (i32.add (local.get $c) (i32.const 16)))
        (br $next)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $rLoop))))

  ;; out[0 .. inner) += sum over rows of x[r][0 .. inner), inner a multiple of 4 (a bias gradient: a sum over
  ;; the leading axes). Four rows at a time, so each output lane is loaded and stored once per four rows.
  (func (export "columnSums") (param $x i32) (param $rows i32) (param $inner i32) (param $out i32)
    (local $r i32) (local $c i32) (local $rowBytes i32) (local $p i32) (local $o i32) (local $r4 i32)
    (local.set $rowBytes (i32.shl (local.get $inner) (i32.const 2)))
    (local.set $r4 (i32.and (local.get $rows) (i32.const -4)))
    (block $rDone (loop $rLoop
      (br_if $rDone (i32.ge_u (local.get $r) (local.get $rows)))
      (local.set $p (i32.add (local.get $x) (i32.mul (local.get $r) (local.get $rowBytes))))
      (local.set $c (i32.const 0))
      (block $cDone (loop $cLoop
        (br_if $cDone (i32.ge_u (local.get $c) (local.get $rowBytes)))
        (local.set $o (i32.add (local.get $out) (local.get $c)))
        (v128.store (local.get $o) (f32x4.add (v128.load (local.get $o))
          (if (result v128) (i32.lt_u (local.get $r) (local.get $r4))
            (then (f32x4.add
              (f32x4.add (v128.load (i32.add (local.get $p) (local.get $c)))
                (v128.load (i32.add (i32.add (local.get $p) (local.get $rowBytes)) (local.get $c))))
              (f32x4.add (v128.load (i32.add (i32.add (local.get $p) (i32.shl (local.get $rowBytes) (i32.const 1))) (local.get $c)))
                (v128.load (i32.add (i32.add (local.get $p) (i32.mul (local.get $rowBytes) (i32.const 3))) (local.get $c))))))
            (else (v128.load (i32.add (local.get $p) (local.get $c)))))))
        (local.set $c (i32.add (local.get $c) (i32.const 16)))
        (br $cLoop)))
      (local.set $r (i32.add (local.get $r) (select (i32.const 4) (i32.const 1) (i32.lt_u (local.get $r) (local.get $r4)))))
      (br $rLoop))))

  ;; The softmax cross-entropy's logits gradient written twice, as rows and transposed, in one pass:
  ;; out[r][j] = -dy[r] probs[r][j] and outT[j][r] the same, for probs [R, V] with R and V multiples of 4;
  ;; rows whose target is outside [0, V) get 0. The caller adds dy[r] at each row's target (both copies).
  ;; 4 x 4 blocks turned in registers, 32 x 32 tiles as in transpose.
  (func (export "xentGradBoth") (param $probs i32) (param $targets i32) (param $dy i32) (param $out i32) (param $outT i32) (param $R i32) (param $V i32)
    (local $i0 i32) (local $j0 i32) (local $i1 i32) (local $j1 i32)
    (local $i i32) (local $j i32) (local $p i32) (local $q i32) (local $o i32) (local $rowBytes i32) (local $colBytes i32)
    (local $s0 v128) (local $s1 v128) (local $s2 v128) (local $s3 v128)
    (local $r0 v128) (local $r1 v128) (local $r2 v128) (local $r3 v128)
    (local $t0 v128) (local $t1 v128) (local $t2 v128) (local $t3 v128)
    (local.set $rowBytes (i32.shl (local.get $V) (i32.const 2)))
    (local.set $colBytes (i32.shl (local.get $R) (i32.const 2)))
    (block $tileRowsDone (loop $tileRows
      (br_if $tileRowsDone (i32.ge_u (local.get $i0) (local.get $R)))
      (local.set $i1 (select (i32.add (local.get $i0) (i32.const 32)) (local.get $R)
        (i32.lt_u (i32.add (local.get $i0) (i32.const 32)) (local.get $R))))
      (local.set $j0 (i32.const 0))
      (block $tileColsDone (loop $tileCols
        (br_if $tileColsDone (i32.ge_u (local.get $j0) (local.get $V)))
        (local.set $j1 (select (i32.add (local.get $j0) (i32.const 32)) (local.get $V)
          (i32.lt_u (i32.add (local.get $j0) (i32.const 32)) (local.get $V))))
        (local.set $i (local.get $i0))
        (block $rowsDone (loop $rows
          (br_if $rowsDone (i32.ge_u (local.get $i) (local.get $i1)))
          (local.set $s0 (f32x4.splat (call $rowScale (local.get $targets) (local.get $dy) (local.get $i) (local.get $V))))
          (local.set $s1 (f32x4.splat (call $rowScale (local.get $targets) (local.get $dy) (i32.add (local.get $i) (i32.const 1)) (local.get $V))))
          (local.set $s2 (f32x4.splat (call $rowScale (local.get $targets) (local.get $dy) (i32.add (local.get $i) (i32.const 2)) (local.get $V))))
          (local.set $s3 (f32x4.splat (call $rowScale (local.get $targets) (local.get $dy) (i32.add (local.get $i) (i32.const 3)) (local.get $V))))
          (local.set $j (local.get $j0))
          (block $colsDone (loop $cols
            (br_if $colsDone (i32.ge_u (local.get $j) (local.get $j1)))
            ;; p: probs[i][j]; o: out[i][j]; q: outT[j][i]
            (local.set $p (i32.add (i32.mul (local.get $i) (local.get $rowBytes)) (i32.shl (local.get $j) (i32.const 2))))
            (local.set $o (i32.add (local.get $out) (local.get $p)))
            (local.set $p (i32.add (local.get $probs) (local.get $p)))
            (local.set $q (i32.add (local.get $outT) (i32.add (i32.mul (local.get $j) (local.get $colBytes)) (i32.shl (local.get $i) (i32.const 2)))))
            (local.set $r0 (f32x4.mul (local.get $s0) (v128.load (local.get $p))))
            (local.set $r1 (f32x4.mul (local.get $s1) (v128.load (i32.add (local.get $p) (local.get $rowBytes)))))
            (local.set $r2 (f32x4.mul (local.get $s2) (v128.load (i32.add (local.get $p) (i32.shl (local.get $rowBytes) (i32.const 1))))))
            (local.set $r3 (f32x4.mul (local.get $s3) (v128.load (i32.add (local.get $p) (i32.mul (local.get $rowBytes) (i32.const 3))))))
            (v128.store (local.get $o) (local.get $r0))
            (v128.store (i32.add (local.get $o) (local.get $rowBytes)) (local.get $r1))
            (v128.store (i32.add (local.get $o) (i32.shl (local.get $rowBytes) (i32.const 1))) (local.get $r2))
            (v128.store (i32.add (local.get $o) (i32.mul (local.get $rowBytes) (i32.const 3))) (local.get $r3))
            (local.set $t0 (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $r0) (local.get $r1)))
            (local.set $t1 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $r0) (local.get $r1)))
            (local.set $t2 (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $r2) (local.get $r3)))
            (local.set $t3 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $r2) (local.get $r3)))
            (v128.store (local.get $q) (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $t0) (local.get $t2)))
            (v128.store (i32.add (local.get $q) (local.get $colBytes)) (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $t0) (local.get $t2)))
            (v128.store (i32.add (local.get $q) (i32.shl (local.get $colBytes) (i32.const 1))) (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $t1) (local.get $t3)))
            (v128.store (i32.add (local.get $q) (i32.mul (local.get $colBytes) (i32.const 3))) (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $t1) (local.get $t3)))
            (local.set $j (i32.add (local.get $j) (i32.const 4)))
            (br $cols)))
          (local.set $i (i32.add (local.get $i) (i32.const 4)))
          (br $rows)))
        (local.set $j0 (local.get $j1))
        (br $tileCols)))
      (local.set $i0 (local.get $i1))
      (br $tileRows))))

  ;; -dy[r] where row r's target is in [0, V), else 0.
  (func $rowScale (param $targets i32) (param $dy i32) (param $r i32) (param $V i32) (result f32)
    (local $t i32)
    (local.set $t (i32.load (i32.add (local.get $targets) (i32.shl (local.get $r) (i32.const 2)))))
    (if (result f32) (i32.lt_u (local.get $t) (local.get $V))
      (then (f32.neg (f32.load (i32.add (local.get $dy) (i32.shl (local.get $r) (i32.const 2))))))
      (else (f32.const 0))))
)
