"""The sieve of ``python -m usmarray`` as behaviour, on the default device and on the NumPy device."""

import numpy as np
import pytest

from usmarray._demo import sieve


@pytest.mark.parametrize("device", [None, "numpy"])
def test_sieve_finds_the_primes_below_a_million(device):
    import usmarray as xp

    primes = sieve(10**6, device=device)
    assert primes.shape == (78498,)
    host = xp.asnumpy(primes)
    assert host[:10].tolist() == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]
    assert host[-1] == 999983
    assert np.all(np.diff(host) > 0)


def test_demo_names_the_default_device_and_why(capsys):
    import usmarray as xp
    from usmarray._demo import main

    with xp.using_device("numpy"):
        assert main() == 0
    out = capsys.readouterr().out
    assert "default device: Device(numpy)\n" in out
    assert "  why: the innermost usmarray.using_device(...) block\n" in out
