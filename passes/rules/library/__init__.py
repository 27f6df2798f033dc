"""kiln's own rule files (``*.rules``, run by the ``graph-simplify`` pass, each also by
``kiln-opt --rules kiln:NAME``) and the natives they call (:mod:`.natives`)."""
