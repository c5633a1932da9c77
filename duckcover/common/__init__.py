"""Small helpers the rooms above share (text from outside made safe, bounded files, the languages). Imports only the engine."""
