/* validate.h - pcaptool validate: conformance verdicts over captures. */
#ifndef PCAPTOOL_VALIDATE_H
#define PCAPTOOL_VALIDATE_H

int cmd_validate(int argc, char **argv);

#endif
