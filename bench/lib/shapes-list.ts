// The model shapes bench/research/shapes.ts and bench/speed/shape-steps.ts compare (issue #32): the `tiny` preset, deeper,
// wider, with a 512-token context, and the `small` preset (contract/run-config.ts PRESET_SHAPES).
export const SHAPES: Record<string, { nLayer: number; nEmbd: number; nHead: number; blockSize: number }> = {
  tiny: { nLayer: 2, nEmbd: 64, nHead: 4, blockSize: 256 },
  '4x64': { nLayer: 4, nEmbd: 64, nHead: 4, blockSize: 256 },
  '2x128': { nLayer: 2, nEmbd: 128, nHead: 4, blockSize: 256 },
  'tiny-512': { nLayer: 2, nEmbd: 64, nHead: 4, blockSize: 512 },
  small: { nLayer: 6, nEmbd: 384, nHead: 6, blockSize: 512 },
};
