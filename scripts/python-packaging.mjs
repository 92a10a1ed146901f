// Which python3 can build and install the Python client's wheel offline (test/package):
// setuptools 61+ (reads pyproject.toml's [project]) with a bdist_wheel (setuptools 70.1+ has
// its own, older ones need the `wheel` package), pip, and venv with ensurepip. Debian's
// python3-setuptools, python3-wheel, python3-pip and python3-venv are all of that; a
// python3 found first on PATH (pyenv, say) may lack some, so /usr/bin/python3 is tried too.
import { spawnSync } from 'node:child_process';

export const PYTHON_PACKAGING_DEBIAN = ['python3-setuptools', 'python3-wheel', 'python3-pip', 'python3-venv'];

const PROBE = `
import setuptools  # first: it replaces distutils, which pip would import first otherwise
import ensurepip, pip, venv
v = tuple(int(p) for p in setuptools.__version__.split(".")[:2])
assert v >= (61, 0), "setuptools " + setuptools.__version__
if v < (70, 1):
    import wheel
`;

/** a python3 with all of it (CONTEXT_HEALTH_PYTHON first, then python3 on PATH, then /usr/bin/python3), or null */
export function findPackagingPython() {
  const candidates = [process.env.CONTEXT_HEALTH_PYTHON, 'python3', '/usr/bin/python3'].filter((c) => c !== undefined && c !== '');
  for (const python of candidates) {
    const r = spawnSync(python, ['-c', PROBE], { encoding: 'utf8' });
    if (r.status === 0) return python;
  }
  return null;
}
