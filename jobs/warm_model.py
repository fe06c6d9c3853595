#!/usr/bin/python3
"""The linear model of pbdw's step (docs/algorithm.md, "Wide piles" and "The pile is not
at rest"): what it predicts for the one-sweep and the symmetric step, and for a carry
that would let the pile come to rest.

    /usr/bin/python3 jobs/warm_model.py            # about a minute (numpy)
    /usr/bin/python3 jobs/warm_model.py --damped   # part 5 alone

The model freezes the contacts of a pile of disks of diameter 1 in hexagonal contact
(W wide, H deep, a floor and two side walls that touch) and drops the clamp (every
contact bilateral).  J is the gap Jacobian, m_c the mobility of contact c (1 for a wall:
the disk moves by the whole increment; 1/2 for a pair: each disk moves by half), and
A = J diag(m) J^T.  A sweep visits the contacts in the order of src/step/pbd.c (rows of
one parity, bottom to top, then the other parity; approximated here by disk rows) and
maps a displacement z of the disks to P z with

    P = I - J^T diag(m) S J,   S = tril(A)^-1 (forward sweep),
                               S = tril^-1 + triu^-1 (I - A tril^-1) (forward then back).

pbdw carries W = D = x - y (with frozen normals G = D), so with u the disks' deviation
from rest one step is  u' = P (u + W),  W' = P (u + W) - u.  For each eigenvalue mu of P
the step has the two roots of z^2 - 2 mu z + mu = 0.

Printed:
 1. for real mu those roots lie on the circle |z - 1/2| = 1/2, which passes through 1:
    the slow modes ring, and no polynomial acceleration (Chebyshev weights, momentum) can
    do better on a spectrum that fills that circle than the step itself;
 2. a complex mu near 1 (a forward sweep's) puts a root outside the unit circle;
 3. for hexagonal piles: the sweep's spectrum (forward: complex; symmetric: real), the
    spectral radius of pbdw's step, and that of the step with the split carry
    W' = P W (the warm start carries the load only; the overlap left at the start of a
    step is corrected but not carried): real, equal to the sweep's, so that Chebyshev
    weights reach (1 - sqrt(1 - mu)) / (1 + sqrt(1 - mu)) per step; and the split with
    a Jacobi guess of the overlap's share, W' = D + g J^T diag(m) diag(A)^-1 J u;
 4. the scalar model (one mode, mu = 1 - eps) with a carry of fixed coefficients,
    lambda' = lambda_new + p (lambda_new - lambda) + q e' + r e (e: the overlap left;
    every such carry keeps the fixed point exact): the fastest decay of the slowest mode
    found on a grid, stable for every eps in [eps0, 1), as a multiple of eps0;
 5. the damped step (tried in issue 46 at commit 4642447 and reverted, because it acts as a
    friction: docs/algorithm.md, "Damping the velocity"): the warm start carries the rest
    displacement plus beta (x_k - x_{k-1}) instead of the whole last displacement, so that one step
    is u' = P (u + beta (u - u_prev)), with the roots of z^2 - (1 + beta) mu z + beta mu
    for each mu of P: for the symmetric sweep, the step's spectral radius and whether the
    slowest mode's roots are real (no ringing), against beta = 1 (the undamped step).
"""
import numpy as np


def pile(W, H):
    """Contacts of a W x H hexagonal pile, sorted in sweep order; J, mobilities, A."""
    s3 = np.sqrt(3) / 2
    pos = [(i + 0.5 + 0.5 * (j % 2), 0.5 + j * s3, i, j) for j in range(H) for i in range(W)]
    idx = {(p[2], p[3]): k for k, p in enumerate(pos)}
    box = W + 0.5
    cons = []
    for k, (x, y, i, j) in enumerate(pos):
        if y - 0.5 < 1e-9:
            cons.append((k, -1, (0.0, 1.0)))
        if x - 0.5 < 1e-9:
            cons.append((k, -1, (1.0, 0.0)))
        if box - x - 0.5 < 1e-9:
            cons.append((k, -1, (-1.0, 0.0)))
        for di, dj in ((1, 0), (0, 1), (-1, 1), (1, 1)):
            q = idx.get((i + di, j + dj))
            if q is None:
                continue
            dx, dy = pos[q][0] - x, pos[q][1] - y
            d = np.hypot(dx, dy)
            if d < 1 + 1e-9:
                cons.append((k, q, (dx / d, dy / d)))
    cons.sort(key=lambda c: (pos[c[0]][3] % 2, pos[c[0]][3], pos[c[0]][2]))
    n2 = 2 * len(pos)
    J = np.zeros((len(cons), n2))
    mob = np.zeros(len(cons))
    for c, (a, b, (nx, ny)) in enumerate(cons):
        J[c, 2 * a], J[c, 2 * a + 1] = -nx, -ny
        if b < 0:
            J[c, 2 * a], J[c, 2 * a + 1] = nx, ny
            mob[c] = 1.0
        else:
            J[c, 2 * b], J[c, 2 * b + 1] = nx, ny
            mob[c] = 0.5
    return J, mob, J @ (J.T * mob)


def sweep(J, mob, A, symmetric):
    m = len(A)
    Sf = np.linalg.inv(np.tril(A))
    S = Sf + np.linalg.inv(np.triu(A)) @ (np.eye(m) - A @ Sf) if symmetric else Sf
    return np.eye(J.shape[1]) - (J.T * mob) @ S @ J


def radius(T):
    return max(abs(np.linalg.eigvals(T)))


def scalar_radius(mu, p, q, r):
    """One mode: sweep lambda' = mu lambda_w + e, overlap e' = e - (1 - mu) lambda'."""
    s = 1 - mu
    lam = np.array([mu, 0, 1.0])                      # over the state (lambda_w, lambda, e)
    e = np.array([0, 0, 1.0]) - s * lam
    lw = lam + p * (lam - np.array([0, 1.0, 0])) + q * e + r * np.array([0, 0, 1.0])
    return radius(np.array([lw, lam, e]))


def scan(eps0):
    epss = np.concatenate(([eps0], np.logspace(np.log10(eps0), 0, 10)[1:-1], [0.999]))
    best = (0, 0, 0, 0)
    for p in np.arange(-1, 1.51, 0.1):
        for q in np.arange(-3, 3.01, 0.4):
            for r in np.arange(-3, 3.01, 0.4):
                worst = 0
                for e in epss:
                    worst = max(worst, scalar_radius(1 - e, p, q, r))
                    if worst >= 1:
                        break
                if worst < 1 and -np.log(worst) / eps0 > best[0]:
                    best = (-np.log(worst) / eps0, p, q, r)
    return best


def main():
    mus = np.linspace(1e-6, 1 - 1e-6, 2001)
    dev = max(abs(abs(r - 0.5) - 0.5) for mu in mus for r in np.roots([1, -2 * mu, mu]))
    print("1. real mu in (0, 1): the roots of z^2 - 2 mu z + mu lie on |z - 1/2| = 1/2 to %.1e" % dev)
    print("2. complex mu = |mu| e^(i phi): the larger root's modulus")
    for r in (0.99, 0.999):
        print("   |mu| = %-6g" % r + "  ".join("phi %-6g: %.4f" % (phi, max(abs(np.roots([1, -2 * r * np.exp(1j * phi), r * np.exp(1j * phi)]))))
                                         for phi in (1e-3, 3e-3, 1e-2, 3e-2)))
    print("3. hexagonal piles (frozen contacts, bilateral)")
    for W, H in ((6, 24), (24, 24)):
        J, mob, A = pile(W, H)
        n2 = J.shape[1]
        I = np.eye(n2)
        for symmetric in (False, True):
            P = sweep(J, mob, A, symmetric)
            mu = np.linalg.eigvals(P)
            near = mu[abs(mu) > 0.9]
            pbdw = np.block([[P, P], [P - I, P]])
            split = np.block([[P, P], [np.zeros((n2, n2)), P]])
            rs = radius(split)
            cheb = (1 - np.sqrt(1 - rs)) / (1 + np.sqrt(1 - rs))
            jac = (J.T * mob) @ np.diag(1 / np.diag(A)) @ J
            rj = radius(np.block([[P, P], [P - I + 0.5 * jac, P]]))
            print("   %2d x %2d, %-9s sweep: |mu| <= %.6f, largest phase near 1 %.2g;  rho(pbdw step) %.6f;"
                  "  rho(split carry) %.6f, with Chebyshev weights %.4f;  rho(Jacobi split, g = 0.5) %.4f"
                  % (W, H, "symmetric" if symmetric else "forward", max(abs(mu)),
                     max(abs(np.angle(near))) if len(near) else 0.0, radius(pbdw), rs, cheb, rj), flush=True)
    print("4. the scalar model, carries of fixed coefficients (pbdw now: p = q = r = 0)")
    for eps0 in (1e-3, 2.5e-4):
        best = scan(eps0)
        print("   eps0 %-7g: fastest decay %.2f eps0 per step (p %.1f, q %.1f, r %.1f); pbdw now %.2f eps0; "
              "critical damping would need about 2 sqrt(eps0) = %.0f eps0"
              % (eps0, best[0], best[1], best[2], best[3], -np.log(scalar_radius(1 - eps0, 0, 0, 0)) / eps0,
                 2 / np.sqrt(eps0)), flush=True)
    part5()


def damped(mus, beta):
    """Largest root modulus over the sweep's eigenvalues, and the slowest mode's roots."""
    worst, slow = 0.0, None
    for mu in mus:
        r = np.roots([1, -(1 + beta) * mu, beta * mu])
        worst = max(worst, max(abs(r)))
    r = np.roots([1, -(1 + beta) * max(mus), beta * max(mus)])
    return worst, r


def part5():
    print("5. the damped step: u' = P (u + beta (u - u_prev)), symmetric sweep")
    for W, H in ((6, 24), (24, 24), (6, 96)):
        J, mob, A = pile(W, H)
        mus = np.sort(np.real(np.linalg.eigvals(sweep(J, mob, A, True))))
        eps = 1 - mus[-1]
        line = "   %2d x %2d: slowest mu = 1 - %.2e;" % (W, H, eps)
        for beta in (1.0, 0.99, 0.95, 0.9, 1 - 2 * np.sqrt(eps)):
            worst, r = damped(mus, beta)
            line += "  beta %.4f: rho %.5f, slowest roots %s" % (
                beta, worst, "real" if np.all(abs(np.imag(r)) < 1e-12) else "complex")
        print(line, flush=True)


if __name__ == "__main__":
    if len(__import__("sys").argv) > 1 and __import__("sys").argv[1] == "--damped":
        part5()
        raise SystemExit(0)
    main()
