from osf_tmux.cli import main

main()
