"""``python -m usmarray``: the diagnostic and demo of :mod:`usmarray._demo`.

A usmarray environment variable that holds a value it does not accept (say
``USMARRAY_DEFAULT_DEVICE=bogus``) is reported on one line, after what could be printed
before it was read, with exit status 2: a diagnostic names a bad setting, it does not
end in a traceback.
"""

import sys

from usmarray._demo import main
from usmarray._env import EnvironmentSettingError

try:
    status = main(sys.argv[1:])
except EnvironmentSettingError as exc:
    print(f"python -m usmarray: {exc}", file=sys.stderr)
    status = 2
raise SystemExit(status)
