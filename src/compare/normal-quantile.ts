/*
 * The inverse of the standard normal CDF: Wichura's algorithm AS241 (PPND16, Applied Statistics
 * 37:477-484, 1988), accurate to about 1e-16 relative (its coefficients below as the nearest
 * doubles of the published 20-digit values). Chosen over Acklam's approximation because
 * it needs no refinement step and so no accurate erfc, which JavaScript does not provide.
 */

/** Coefficients, highest degree last, of the rational approximation near the centre (|q| ≤ 0.425). */
const CENTRE_NUM = [
  3.3871328727963665, 133.14166789178438, 1971.5909503065513, 13731.69376550946, 45921.95393154987,
  67265.7709270087, 33430.57558358813, 2509.0809287301227,
];
const CENTRE_DEN = [
  1, 42.31333070160091, 687.1870074920579, 5394.196021424751, 21213.794301586597, 39307.89580009271,
  28729.085735721943, 5226.495278852854,
];
/** The intermediate tail, √(−ln min(p, 1 − p)) ≤ 5. */
const NEAR_NUM = [
  1.4234371107496835, 4.630337846156546, 5.769497221460691, 3.6478483247632045, 1.2704582524523684,
  0.2417807251774506, 0.022723844989269184, 0.0007745450142783414,
];
const NEAR_DEN = [
  1, 2.053191626637759, 1.6763848301838038, 0.6897673349851, 0.14810397642748008,
  0.015198666563616457, 0.0005475938084995345, 1.0507500716444169e-9,
];
/** The far tail, beyond (down to p ≈ 1e-300). */
const FAR_NUM = [
  6.657904643501103, 5.463784911164114, 1.7848265399172913, 0.29656057182850487,
  0.026532189526576124, 0.0012426609473880784, 2.7115555687434876e-5, 2.0103343992922881e-7,
];
const FAR_DEN = [
  1, 0.599832206555888, 0.1369298809227358, 0.014875361290850615, 0.0007868691311456133,
  1.8463183175100548e-5, 1.421511758316446e-7, 2.0442631033899397e-15,
];

/** Horner's rule over coefficients listed from the constant term up. */
function polynomial(coefficients: readonly number[], x: number): number {
  let sum = 0;
  for (let i = coefficients.length - 1; i >= 0; i--) sum = sum * x + coefficients[i]!;
  return sum;
}

/** z such that P(Z < z) = p for a standard normal Z (0 < p < 1; 0 and 1 give ∓Infinity). */
export function normalQuantile(p: number): number {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`normalQuantile needs 0 ≤ p ≤ 1, got ${p}`);
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    return (q * polynomial(CENTRE_NUM, r)) / polynomial(CENTRE_DEN, r);
  }
  const tail = Math.sqrt(-Math.log(q < 0 ? p : 1 - p));
  const z =
    tail <= 5
      ? polynomial(NEAR_NUM, tail - 1.6) / polynomial(NEAR_DEN, tail - 1.6)
      : polynomial(FAR_NUM, tail - 5) / polynomial(FAR_DEN, tail - 5);
  return q < 0 ? -z : z;
}
