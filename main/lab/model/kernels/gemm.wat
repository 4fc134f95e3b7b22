;; Matrix products C = A @ B over the WebAssembly backend's own memory (imported), for the wasm backend's
;; BatchMatMul (gemm.ts). Built twice into simd-bytes.ts by simd-build.ts: with plain SIMD (a multiply, then an
;; add) and, for runtimes with relaxed SIMD, with its fused multiply-add (each line marked `;; @fma` takes the
;; text after the mark). Why hand-written: tfjs 4.22's XNNPACK build reaches 30-35 GFLOP/s on the step's
;; products here; this 4 x 8 register block (8 accumulators, two vectors of B, one broadcast of A: 11 of the
;; 16 SIMD registers V8 gives x64; 5 or 6 rows spill) reaches 42-48 (docs/performance.md, "Faster products").
(module
  (import "env" "memory" (memory 0))

  ;; c + a b on four lanes: fused (one rounding) where the runtime has relaxed SIMD.
  ;; @inline (simd-build.ts writes it out at each call: wat-inline.ts)
  (func $madd (param $a v128) (param $b v128) (param $c v128) (result v128)
    (f32x4.add (local.get $c) (f32x4.mul (local.get $a) (local.get $b))) ;; @fma (f32x4.relaxed_madd (local.get $a) (local.get $b) (local.get $c))
  )

  ;; B [K, N] (row-major, byte address $src) packed as N / 8 panels of K rows of 8 columns at $dst, so the
  ;; product reads each panel front to back. N % 8 == 0.
  (func (export "packB") (param $src i32) (param $dst i32) (param $K i32) (param $N i32)
    (local $jb i32) (local $k i32) (local $s i32) (local $ld i32)
    (local.set $ld (i32.shl (local.get $N) (i32.const 2)))
    (block $done (loop $panels
      (br_if $done (i32.ge_u (i32.shl (local.get $jb) (i32.const 3)) (local.get $N)))
      (local.set $s (i32.add (local.get $src) (i32.shl (local.get $jb) (i32.const 5))))
      (local.set $k (local.get $K))
      (block $end (loop $rows
        (br_if $end (i32.eqz (local.get $k)))
        (v128.store (local.get $dst) (v128.load (local.get $s)))
        (v128.store offset=16 (local.get $dst) (v128.load offset=16 (local.get $s)))
        (local.set $s (i32.add (local.get $s) (local.get $ld)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 32)))
        (local.set $k (i32.sub (local.get $k) (i32.const 1)))
        (br $rows)))
      (local.set $jb (i32.add (local.get $jb) (i32.const 1)))
      (br $panels))))

  ;; C [M, N] = A [M, K] @ B, B packed by packB at $bp (byte addresses, row-major A and C). N % 8 == 0, K >= 1.
  ;; Rows four at a time, then one at a time; for each, every panel of B.
  (func (export "gemm") (param $A i32) (param $bp i32) (param $C i32) (param $M i32) (param $K i32) (param $N i32)
    (local $i i32) (local $jb i32) (local $k i32) (local $ap i32) (local $bq i32) (local $cp i32) (local $lda i32) (local $ldc i32)
    (local $a v128) (local $b0 v128) (local $b1 v128)
    (local $c00 v128) (local $c01 v128) (local $c10 v128) (local $c11 v128)
    (local $c20 v128) (local $c21 v128) (local $c30 v128) (local $c31 v128)
    (local.set $lda (i32.shl (local.get $K) (i32.const 2)))
    (local.set $ldc (i32.shl (local.get $N) (i32.const 2)))
    (block $done4 (loop $rows4
      (br_if $done4 (i32.gt_u (i32.add (local.get $i) (i32.const 4)) (local.get $M)))
      (local.set $jb (i32.const 0))
      (block $doneJ (loop $cols
        (br_if $doneJ (i32.ge_u (i32.shl (local.get $jb) (i32.const 3)) (local.get $N)))
        (local.set $c00 (v128.const i32x4 0 0 0 0)) (local.set $c01 (v128.const i32x4 0 0 0 0))
        (local.set $c10 (v128.const i32x4 0 0 0 0)) (local.set $c11 (v128.const i32x4 0 0 0 0))
        (local.set $c20 (v128.const i32x4 0 0 0 0)) (local.set $c21 (v128.const i32x4 0 0 0 0))
        (local.set $c30 (v128.const i32x4 0 0 0 0)) (local.set $c31 (v128.const i32x4 0 0 0 0))
        (local.set $ap (i32.add (local.get $A) (i32.mul (local.get $i) (local.get $lda))))
        (local.set $bq (i32.add (local.get $bp) (i32.shl (i32.mul (local.get $jb) (local.get $K)) (i32.const 5))))
        (local.set $k (local.get $K))
        (loop $inner
          (local.set $b0 (v128.load (local.get $bq)))
          (local.set $b1 (v128.load offset=16 (local.get $bq)))
          (local.set $a (v128.load32_splat (local.get $ap)))
          (local.set $c00 (call $madd (local.get $a) (local.get $b0) (local.get $c00)))
          (local.set $c01 (call $madd (local.get $a) (local.get $b1) (local.get $c01)))
          (local.set $a (v128.load32_splat (i32.add (local.get $ap) (local.get $lda))))
          (local.set $c10 (call $madd (local.get $a) (local.get $b0) (local.get $c10)))
          (local.set $c11 (call $madd (local.get $a) (local.get $b1) (local.get $c11)))
          (local.set $a (v128.load32_splat (i32.add (local.get $ap) (i32.shl (local.get $lda) (i32.const 1)))))
          (local.set $c20 (call $madd (local.get $a) (local.get $b0) (local.get $c20)))
          (local.set $c21 (call $madd (local.get $a) (local.get $b1) (local.get $c21)))
          (local.set $a (v128.load32_splat (i32.add (local.get $ap) (i32.mul (local.get $lda) (i32.const 3)))))
          (local.set $c30 (call $madd (local.get $a) (local.get $b0) (local.get $c30)))
          (local.set $c31 (call $madd (local.get $a) (local.get $b1) (local.get $c31)))
          (local.set $ap (i32.add (local.get $ap) (i32.const 4)))
          (local.set $bq (i32.add (local.get $bq) (i32.const 32)))
          (local.set $k (i32.sub (local.get $k) (i32.const 1)))
          (br_if $inner (local.get $k)))
        (local.set $cp (i32.add (local.get $C) (i32.add (i32.mul (local.get $i) (local.get $ldc)) (i32.shl (local.get $jb) (i32.const 5)))))
        (v128.store (local.get $cp) (local.get $c00)) (v128.store offset=16 (local.get $cp) (local.get $c01))
        (local.set $cp (i32.add (local.get $cp) (local.get $ldc)))
        (v128.store (local.get $cp) (local.get $c10)) (v128.store offset=16 (local.get $cp) (local.get $c11))
        (local.set $cp (i32.add (local.get $cp) (local.get $ldc)))
        (v128.store (local.get $cp) (local.get $c20)) (v128.store offset=16 (local.get $cp) (local.get $c21))
        (local.set $cp (i32.add (local.get $cp) (local.get $ldc)))
        (v128.store (local.get $cp) (local.get $c30)) (v128.store offset=16 (local.get $cp) (local.get $c31))
        (local.set $jb (i32.add (local.get $jb) (i32.const 1)))
        (br $cols)))
      (local.set $i (i32.add (local.get $i) (i32.const 4)))
      (br $rows4)))
    ;; The last M % 4 rows, one at a time.
    (block $done1 (loop $rows1
      (br_if $done1 (i32.ge_u (local.get $i) (local.get $M)))
      (local.set $jb (i32.const 0))
      (block $doneJ1 (loop $cols1
        (br_if $doneJ1 (i32.ge_u (i32.shl (local.get $jb) (i32.const 3)) (local.get $N)))
        (local.set $c00 (v128.const i32x4 0 0 0 0)) (local.set $c01 (v128.const i32x4 0 0 0 0))
        (local.set $ap (i32.add (local.get $A) (i32.mul (local.get $i) (local.get $lda))))
        (local.set $bq (i32.add (local.get $bp) (i32.shl (i32.mul (local.get $jb) (local.get $K)) (i32.const 5))))
        (local.set $k (local.get $K))
        (loop $inner1
          (local.set $a (v128.load32_splat (local.get $ap)))
          (local.set $c00 (call $madd (local.get $a) (v128.load (local.get $bq)) (local.get $c00)))
          (local.set $c01 (call $madd (local.get $a) (v128.load offset=16 (local.get $bq)) (local.get $c01)))
          (local.set $ap (i32.add (local.get $ap) (i32.const 4)))
          (local.set $bq (i32.add (local.get $bq) (i32.const 32)))
          (local.set $k (i32.sub (local.get $k) (i32.const 1)))
          (br_if $inner1 (local.get $k)))
        (local.set $cp (i32.add (local.get $C) (i32.add (i32.mul (local.get $i) (local.get $ldc)) (i32.shl (local.get $jb) (i32.const 5)))))
        (v128.store (local.get $cp) (local.get $c00)) (v128.store offset=16 (local.get $cp) (local.get $c01))
        (local.set $jb (i32.add (local.get $jb) (i32.const 1)))
        (br $cols1)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $rows1)))
  )
)
