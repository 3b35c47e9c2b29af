/* replay.h - pcaptool replay (replay.c) */
#ifndef PCAPTOOL_REPLAY_H
#define PCAPTOOL_REPLAY_H

int cmd_replay(int argc, char **argv);

#endif
