from usmarray._demo import main

raise SystemExit(main())
