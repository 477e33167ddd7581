from osf_tmux.cli.main import main

main()
