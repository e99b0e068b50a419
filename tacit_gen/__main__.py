"""`python -m tacit_gen`: the `tacit-gen` command, for an environment whose scripts folder is not
on PATH."""

from tacit_gen.cli import main

if __name__ == "__main__":
    main(prog_name="tacit-gen")
