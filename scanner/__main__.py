from scanner.cli.main import main

main()
