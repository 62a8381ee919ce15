from conformance.run import main

raise SystemExit(main())
