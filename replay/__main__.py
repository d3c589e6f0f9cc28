import sys

try:
    from replay.cli import main
except KeyboardInterrupt:  # Ctrl-C while the command is still being loaded: no traceback
    sys.stderr.write("replay: interrupted\n")
    sys.exit(130)

main()
