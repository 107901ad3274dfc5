from scanner.cli.launch import run

run()
