"""Claims, one package per paper; each module registers its claims with :func:`verify.claim`."""
