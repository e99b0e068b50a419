"""`python -m tacit_gen.cli`: the `tacit-gen` command."""

from tacit_gen.cli import main

if __name__ == "__main__":  # pragma: no cover
    main()
