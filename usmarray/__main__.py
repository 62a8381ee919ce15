import sys

from usmarray._demo import main

raise SystemExit(main(sys.argv[1:]))
