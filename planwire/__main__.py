"""`python -m planwire`: the same command line as the `planwire` script."""

from planwire.cli import app

app(prog_name="planwire")
