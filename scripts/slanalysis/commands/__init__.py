"""The command lines: argument parsing, reading the results, writing the outputs. Each module
has main(argv) -> exit status; scripts/<name>.py and scripts/analyze.py call them."""
