"""Live tests of the library adapters (rv.models.Implicit, Cornac, LensKit) against each library."""
