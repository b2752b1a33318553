from contio.cli import main

main()
