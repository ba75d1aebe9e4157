"""PyTorch loader: capture forms, TorchScript and ExportedProgram decoders, the shared graph builder."""
