;; SIMD row kernels over the WebAssembly backend's own memory (imported, so tensors are read and written in
;; place). Built into simd-bytes.ts by `npx tsx main/lab/model/simd-build.ts`; a unit test rebuilds it and
;; checks the two agree. Why hand-written: the softmax of the loss walks 4M logits a step, and exp in tfjs's
;; wasm kernels and in JavaScript costs about 10 ns a value; four lanes of a polynomial cost about one.
(module
  (import "env" "memory" (memory 0))

  ;; e^x on four lanes for x <= 0 (Cephes expf): x = k ln2 + r, |r| <= ln2 / 2, e^r by a degree-6
  ;; polynomial, 2^k through the exponent bits. Below -87 the result is 2^-126 e^(..) or so: as good as 0
  ;; next to the row's largest term, which is e^0 = 1.
  (func $exp4 (param $x v128) (result v128)
    (local $k v128) (local $r v128) (local $p v128)
    (local.set $x (f32x4.max (local.get $x) (f32x4.splat (f32.const -87.0))))
    (local.set $k (f32x4.nearest (f32x4.mul (local.get $x) (f32x4.splat (f32.const 1.44269504088896341)))))
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
    (f32x4.mul (local.get $p)
      (i32x4.shl (i32x4.add (i32x4.trunc_sat_f32x4_s (local.get $k)) (i32x4.splat (i32.const 127))) (i32.const 23))))

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
      (local.set $vmax (f32x4.max (local.get $vmax) (v128.load (i32.add (local.get $src) (i32.shl (local.get $j) (i32.const 2))))))
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
  ;; each 4 x 4 block turned in registers, so every load and store moves 16 bytes.
  (func (export "transpose") (param $src i32) (param $dst i32) (param $R i32) (param $C i32)
    (local $i i32) (local $j i32) (local $p i32) (local $q i32) (local $rowBytes i32) (local $colBytes i32)
    (local $r0 v128) (local $r1 v128) (local $r2 v128) (local $r3 v128)
    (local $t0 v128) (local $t1 v128) (local $t2 v128) (local $t3 v128)
    (local.set $rowBytes (i32.shl (local.get $C) (i32.const 2)))
    (local.set $colBytes (i32.shl (local.get $R) (i32.const 2)))
    (block $rowsDone (loop $rows
      (br_if $rowsDone (i32.ge_u (local.get $i) (local.get $R)))
      (local.set $j (i32.const 0))
      (block $colsDone (loop $cols
        (br_if $colsDone (i32.ge_u (local.get $j) (local.get $C)))
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
      (br $rows))))
)
